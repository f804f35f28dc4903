"""Named prompt templates of the reflection layer (Generative Agents, Self-Refine, ReFeed)."""

from __future__ import annotations

from langchain_core.prompts import PromptTemplate

# Generative Agents, section 4.2: focal questions from the most recent memories.
FOCAL_QUESTIONS = PromptTemplate.from_template(
    "{statements}\n\n"
    "Given only the information above, what are {count} most salient high-level questions "
    "we can answer about the subjects in the statements? Write one question per line."
)

# Generative Agents: insights that cite the numbered statements they rest on.
INSIGHTS = PromptTemplate.from_template(
    "Statements about {owner}\n{statements}\n\n"
    "What {count} high-level insights can you infer from the above statements? "
    "Write one per line in this format: insight (because of 1, 5, 3)"
)

# One worked example per reflection prompt, given as a previous chat turn: zero-shot, the
# 135M model echoes the instruction and never cites; with the example it follows the format.
EXAMPLE_OWNER = "Klaus Mueller"
EXAMPLE_STATEMENTS = (
    "1. Klaus Mueller is writing a research paper on gentrification\n"
    "2. Klaus read a book about urban housing at the library\n"
    "3. Klaus talked with Maria about his paper\n"
    "4. Klaus ate lunch at Hobbs Cafe\n"
    "5. Klaus stayed up late to finish a chapter of his paper"
)
EXAMPLE_QUESTIONS = (
    "1. What topic is Klaus Mueller passionate about?\n"
    "2. How hard does Klaus work on his research?\n"
    "3. Who does Klaus talk to about his work?"
)
EXAMPLE_INSIGHTS = (
    "1. Klaus Mueller is dedicated to his research on gentrification (because of 1, 2, 5)\n"
    "2. Klaus shares his work with friends like Maria (because of 3)\n"
    "3. Klaus works long hours on his paper (because of 5)"
)

# Self-Refine (Madaan et al. 2023): the default task-agnostic prompts.
SELF_REFINE_GENERATE = PromptTemplate.from_template("{task}")
SELF_REFINE_FEEDBACK = PromptTemplate.from_template(
    "Task: {task}\nAnswer: {output}\n\n"
    "Give short, specific feedback on how to improve the answer. "
    "If it is already correct and complete, say: it is correct."
)
SELF_REFINE_REFINE = PromptTemplate.from_template(
    "Task: {task}\n\n{history}\n\n"
    "Write an improved answer that follows the last feedback. Reply with the answer only."
)

# ReFeed (Yu et al. 2023): refine an answer with retrieved documents.
REFEED_ANSWER = PromptTemplate.from_template("Answer briefly.\nQuestion: {question}")
REFEED_REFINE = PromptTemplate.from_template(
    "Documents:\n{documents}\n\nQuestion: {question}\nA first answer was: {answer}\n"
    "Using the documents, give a better answer. Reply with the answer only."
)
REFEED_SCORE_CONTEXT = PromptTemplate.from_template(
    "Documents:\n{documents}\n\nQuestion: {question}\nAnswer:"
)
