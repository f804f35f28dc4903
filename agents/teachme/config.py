"""Configuration of the teachable reasoner (read without importing the reasoner)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memory.records import RelevanceMode


class TeachMeConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    retrieve_k: int = Field(5, ge=0, description="taught facts retrieved per question (r)")
    retrieval: RelevanceMode = "bm25"
    hypotheses: Literal["rule", "model"] = "rule"
    write_premises: bool = Field(
        False, description="the model writes one more premise per proof (verified with p_yes)"
    )
    entailment_check: bool = Field(False, description="multiply in p_yes(premises => hypothesis)")
    min_proof_score: float | None = Field(None, description="below this, no proof is found")
    max_tokens: int = Field(32, ge=1, description="length of written premises and answers")
