"""Named prompt templates of the personal assistant."""

from __future__ import annotations

from langchain_core.prompts import PromptTemplate

ANSWER = PromptTemplate.from_template(
    "You are a personal assistant with a long memory of the user.\n"
    "What you remember (oldest first, with dates):\n{memories}\n"
    "{history}"
    "User: {message}\n"
    "Answer in one or two sentences, using what you remember; if it is not there, say so."
)
MEMORY_LINE = PromptTemplate.from_template("- [{date}] {text}")
# A memory that a later one replaced, shown under it so "before" questions can be answered.
REPLACED_LINE = PromptTemplate.from_template("  (before that, no longer true: [{date}] {text})")
# A recalled memory that a later one (not recalled) replaced.
NO_LONGER_TRUE = PromptTemplate.from_template("{line} (no longer true)")
HISTORY = PromptTemplate.from_template("The conversation so far:\n{turns}\n")
