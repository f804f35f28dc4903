"""Configuration of the reflection layer, in a module of its own so the configuration can be
read without importing the models behind it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ReflectionConfig(BaseModel):
    """When and how much to reflect; the paper's values are the defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float = Field(150.0, gt=0, description="summed importance that triggers")
    recent: int = Field(100, ge=1, description="memories the questions are drawn from")
    questions: int = Field(3, ge=1)
    insights_per_question: int = Field(5, ge=1)
    evidence_k: int = Field(15, ge=1, description="memories retrieved per question")
    max_tokens: int = Field(160, ge=1, description="length of the model's questions/insights")
    min_evidence_similarity: float | None = Field(
        0.4,
        ge=-1.0,
        le=1.0,
        description="a cited memory must be this similar (cosine) to the insight to count as "
        "evidence; None trusts the model's citations as given",
    )
    min_found_evidence: int | None = Field(
        2,
        ge=1,
        description="an insight citing nothing that supports it is kept when this many distinct "
        "memories it was given are similar enough to it (they become its evidence); None drops "
        "it. Needs min_evidence_similarity",
    )
    offered: int = Field(
        2,
        ge=0,
        description="insights stored per reflection from those the application's memories "
        "prove (a town's: news heard from several people, who an agent keeps talking with, "
        "where it spends its day), the ones the model rates most important; 0 stores none",
    )


class SelfRefineConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    max_iters: int = Field(3, ge=0, description="refinements after the first answer")
    max_tokens: int = Field(96, ge=1, description="length of each answer and feedback")


class ReFeedConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(4, ge=1, description="diverse answers sampled per question")
    temperature: float = Field(0.8, gt=0.0)
    max_tokens: int = Field(24, ge=1, description="length of each answer")
    per_query: int = Field(10, ge=1, description="documents retrieved per question + answer")
    keep: int = Field(5, ge=1, description="documents kept after fusion")
