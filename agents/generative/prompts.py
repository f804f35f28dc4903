"""Named prompt templates of the generative agent (Park et al. 2023, appendix prompts, shortened
for a small model: few-shot where the 135M model otherwise echoes the instruction)."""

from __future__ import annotations

from langchain_core.prompts import PromptTemplate

# Section 4.1 / appendix: the agent's summary description, one question per aspect.
SUMMARY_ASPECTS = {
    "core": "{name}'s core characteristics",
    "occupation": "{name}'s current daily occupation",
    "feeling": "{name}'s feeling about recent progress in life",
}
SUMMARY = PromptTemplate.from_template(
    "Statements about {name}:\n{statements}\n\n"
    "In one sentence, describe {aspect} given only the statements above.\n{name}"
)

# Section 4.3: the day plan in broad strokes, written as a numbered list with times.
DAY_PLAN = PromptTemplate.from_template(
    "{summary}\n"
    "Yesterday {name} {yesterday}\n"
    "Today is {date}. It is now {time}. Write {name}'s plan for the rest of today in "
    "{count} broad steps, one per line, each with its start time.\n"
    "Example:\n1) 8:00 am: have breakfast at home\n2) 9:00 am: work on the morning tasks\n"
    "3) 12:00 pm: eat lunch\n\n{name}'s plan:\n1) {time}:"
)

# Decomposition: a broad step -> hour-long steps -> 5-15 minute actions.
HOURLY = PromptTemplate.from_template(
    "{summary}\n"
    "{name} plans to {activity} from {start} to {end}. Break this into {count} hour-long "
    "steps, one per line.\n1)"
)
ACTIONS = PromptTemplate.from_template(
    "{summary}\n"
    "{name} plans to {activity} from {start} to {end}. List what {name} does, in steps of "
    "5 to 15 minutes, one per line, with each step's duration.\n"
    "Example:\n1) make coffee (10 minutes)\n2) read the news (15 minutes)\n\n1)"
)

# Location: the model scores the world's own options (small models choose better than they write).
AREA = PromptTemplate.from_template(
    "{name} lives in {home}. {name} knows these places: {areas}.\n"
    "{name} is going to {activity}. For this, {name} goes to"
)
ROOM = PromptTemplate.from_template(
    "{name} is in {area}, which has: {rooms}.\n"
    "{name} is going to {activity}. For this, {name} goes to the"
)

# Section 4.3.1: react or continue, with retrieved context about the observed person or thing.
REACT = PromptTemplate.from_template(
    "{summary}\n"
    "It is {time}. {name} is {activity}.\n"
    "What {name} remembers that is relevant:\n{context}\n"
    "Observation: {observation}\n"
    "Should {name} stop and react to the observation? Answer yes or no.\nAnswer:"
)
REACTION = PromptTemplate.from_template(
    "{summary}\n"
    "It is {time}. {name} was {activity} and notices: {observation}.\n"
    "In a few words, what does {name} do now?\n{name} will"
)

# Section 4.3.2: one dialogue line, conditioned on memories of the partner and the dialogue so far.
DIALOGUE_LINE = PromptTemplate.from_template(
    "{summary}\n"
    "It is {time}. {name} is at {place} with {partner}.\n"
    "What {name} remembers about {partner}:\n{context}\n"
    "{opening}"
    "{dialogue}"
    "Write {name}'s next line, one or two sentences.\n{name}:"
)

# Interviews (section 6): answer in character from retrieved memories.
INTERVIEW = PromptTemplate.from_template(
    "{summary}\n"
    "What {name} remembers that is relevant:\n{context}\n\n"
    "An interviewer asks {name}: {question}\n"
    "Answer as {name}, in one or two sentences.\n{name}:"
)
