"""Named prompt templates of the teachable reasoner."""

from __future__ import annotations

from langchain_core.prompts import PromptTemplate

# What the model scores: the answer's likelihood after the question, alone (the "fast
# thinking" direct answer) or with the premises of a proof before it.
DIRECT = PromptTemplate.from_template("Question: {question}\nAnswer:")
WITH_PREMISES = PromptTemplate.from_template("{premises}\nQuestion: {question}\nAnswer:")
PREMISE_LINE = PromptTemplate.from_template("Fact: {fact}")

HYPOTHESIS = PromptTemplate.from_template(
    "Rewrite the question and its answer as one true-or-false statement.\n"
    "Question: {question}\nAnswer: {choice}\nStatement:"
)
PREMISE = PromptTemplate.from_template(
    "Known: {given}\nGive one more short general fact that explains why this is true: "
    "{hypothesis}\nFact:"
)
ENTAILMENT = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    "Question: Snow is cold. Ice is frozen water. Does it follow that ice is cold?\nAnswer: Yes\n\n"
    "Question: Dogs are animals. Does it follow that dogs can fly?\nAnswer: No\n\n"
    "Question: {premises} Does it follow that {hypothesis}?\nAnswer: "
)
