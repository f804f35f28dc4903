"""Named prompt templates of the generative agent (Park et al. 2023, appendix prompts, shortened
for a small model).

Each free-text request comes with a prefill: the first words of the reply, which the model
continues. Without it the 135M model echoes the request or counts "1. 2. 3."; with it, it
writes list items and lines in the asked form.
"""

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
    "In one sentence, describe {aspect} given only the statements above."
)
SUMMARY_PREFILL = PromptTemplate.from_template("{name}")

# Section 4.3: the day plan in broad strokes, a numbered list with start times. Steps that
# copy the example are not the agent's plan (the 135M model often copies it).
PLAN_EXAMPLE = (
    "8:00 am: have breakfast at home",
    "9:00 am: work at the office",
    "12:00 pm: eat lunch",
)
DAY_PLAN = PromptTemplate.from_template(
    "{summary}\n"
    "Yesterday {name} {yesterday}\n"
    "{intentions}"
    "Today is {date}. It is now {time}. Write {name}'s plan for the rest of today in "
    "{count} broad steps, one per line, each with its start time, like this:\n"
    + "\n".join(f"{n}) {step}" for n, step in enumerate(PLAN_EXAMPLE, 1))
)
DAY_PLAN_PREFILL = PromptTemplate.from_template("{name}'s plan for today:\n1) {time}:")

# A day the model cannot write is chosen, part by part, among activities from the agent's
# routine, its inner voice and the invitations it remembers (calibrated like places).
PLAN_CHOICE = PromptTemplate.from_template(
    "{summary}\n"
    "What {name} remembers:\n{context}\n"
    "{intentions}"
    "Today is {date}. At {time}, {name} is going to"
)
PLAN_CHOICE_BASELINE = "At this time, someone is going to"

# Decomposition: a broad step -> hour-long steps -> 5-15 minute actions.
HOURLY = PromptTemplate.from_template(
    "{summary}\n"
    "{name} plans to {activity} from {start} to {end}. Break this into {count} hour-long "
    "steps, one per line."
)
ACTIONS = PromptTemplate.from_template(
    "{summary}\n"
    "{name} plans to {activity} from {start} to {end}. List {name}'s steps of 5 to 15 "
    "minutes, one per line, each with its duration."
)
LIST_PREFILL = "1)"

# Location: the model scores the world's own options (small models choose better than they
# write); each option's score is calibrated by its score after a neutral prompt.
AREA = PromptTemplate.from_template(
    "{name} lives in {home}. {name} knows these places: {areas}.\n"
    "{name} is going to {activity}. For this, {name} goes to"
)
ROOM = PromptTemplate.from_template(
    "{name} is in {area}, which has: {rooms}.\n"
    "{name} is going to {activity}. For this, {name} goes to the"
)
PLACE_BASELINE = "Someone goes to"

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
    "In a few words, what does {name} do now?"
)
REACTION_PREFILL = PromptTemplate.from_template("{name} will")
DEED_BASELINE = "Someone will"  # the neutral prompt a deed's score is calibrated against

# Section 4.3.2: one dialogue line, conditioned on memories of the partner and the dialogue.
DIALOGUE_LINE = PromptTemplate.from_template(
    "{summary}\n"
    "It is {time}. {name} is at {place} with {partner}.\n"
    "What {name} remembers about {partner}:\n{context}\n"
    "{opening}"
    "{dialogue}"
    "{news}"
    "Write {name}'s next line, one or two sentences."
)
# What to talk about (section 7.1): the news from memory a speaker's first line brings up.
NEWS_HINT = PromptTemplate.from_template("{name} wants to tell {partner}: {news}\n")
SPEAKER_PREFILL = PromptTemplate.from_template("{name}:")

# Interviews (section 6): answer in character from retrieved memories.
INTERVIEW = PromptTemplate.from_template(
    "{summary}\n"
    "What {name} remembers that is relevant:\n{context}\n\n"
    "An interviewer asks {name}: {question}\n"
    "Answer as {name}, in one or two sentences."
)
