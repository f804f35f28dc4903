"""Named prompt templates of the model layer."""

from __future__ import annotations

from langchain_core.prompts import PromptTemplate

# Generative Agents' poignancy prompt (Park et al. 2023, Appendix), made few-shot: the 135M
# model gives no signal zero-shot, while six rated examples separate mundane from poignant.
# The examples avoid the texts of the project's test set (tests/data/poignancy.jsonl).
POIGNANCY_INSTRUCTION = (
    "On the scale of 1 to 10, where 1 is purely mundane (e.g., brushing teeth, making bed) "
    "and 10 is extremely poignant (e.g., a break up, college acceptance), rate the likely "
    "poignancy of the following piece of memory.\n\n"
)
POIGNANCY_EXAMPLES = (
    ("Memory: I put the dishes in the dishwasher\nRating: 1\n\n"),
    ("Memory: My grandmother passed away this morning\nRating: 9\n\n"),
    ("Memory: I walked to the bus stop\nRating: 2\n\n"),
    ("Memory: I got accepted into my dream university\nRating: 9\n\n"),
    ("Memory: I watered the plants on the balcony\nRating: 1\n\n"),
    ("Memory: My best friend told me she is moving abroad for good\nRating: 8\n\n"),
)
POIGNANCY = PromptTemplate.from_template(
    POIGNANCY_INSTRUCTION + "".join(POIGNANCY_EXAMPLES) + "Memory: {memory}\nRating: "
)

# Yes/no truth question, few-shot: on 10 true vs 10 false everyday statements the 135M model's
# P(yes) was 0.35 vs 0.27 (8/10 pairs ordered right); zero-shot through the chat template it
# was 0.33 vs 0.33. Weak, so callers combine it with other evidence.
TRUTH_QUESTION = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    "Question: Is it true that snow is white?\nAnswer: Yes\n\n"
    "Question: Is it true that cats can breathe underwater?\nAnswer: No\n\n"
    "Question: Is it true that the moon orbits the earth?\nAnswer: Yes\n\n"
    "Question: Is it true that stones are alive?\nAnswer: No\n\n"
    "Question: Is it true that {statement}?\nAnswer: "
)

# A served model does not continue a final assistant message; it is asked to begin with it.
PREFILL_INSTRUCTION = PromptTemplate.from_template(
    "{request}\n\nBegin your reply with exactly these words, then continue: {prefill}"
)

# Closed-set questions for servers without a typed-decision endpoint: the model answers with a
# label, read from the first token's log-probabilities where the server gives them, else parsed.
# The wording follows `transformers serve`'s /v1/systemone default prompt. The instruction
# comes first and last: the 135M model, asked only at the end, rambled instead of answering in
# 1 of 20 poignancy prompts (in 0 of 20 with the instruction at both ends).
DECISION_CHOICE = PromptTemplate.from_template(
    "{instruction}\n\n{prompt}\n\n{options}\n{instruction}"
)
CHOICE_INSTRUCTION = PromptTemplate.from_template(
    "Answer with the letter of the option that fits best ({first} to {last}) only."
)
DECISION_SCORE = PromptTemplate.from_template("{instruction}\n\n{prompt}\n\n{instruction}")
SCORE_INSTRUCTION = PromptTemplate.from_template(
    "Answer with one whole number from {low} to {high} only."
)
YES_NO_INSTRUCTION = "Answer Yes or No only."
DECISION_RETRY = PromptTemplate.from_template(
    "That reply could not be used: {error}. {instruction}"
)
