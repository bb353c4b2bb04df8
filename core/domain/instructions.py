"""Text that addresses a model or its reader with instructions ("ignore previous instructions", "SYSTEM: ...").

Such a sentence in a document is never a statement of the law: the engines never make it a claim, and the Corpus
page flags the document that contains it. English wording rules only.
"""

from __future__ import annotations

import re

INSTRUCTION_PATTERNS = (
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|"
    r"preceding|other|system)\s+(?:instructions?|prompts?|rules|messages|directions)",
    r"(?:^|[\n.!?]\s*)(?:system|assistant|user|developer)\s*(?:prompt\s*)?:",
    r"<\|?\s*(?:system|im_start|im_end|endoftext)",
    r"\byou are (?:now )?(?:an?|the) (?:ai|assistant|language model|chatbot|llm)\b",
    r"\bas an? (?:ai|large language model|language model)\b",
    r"\b(?:new|updated|hidden) instructions?\s*:",
    r"\b(?:language model|llm|ai assistant|chatbot)s?\b[^.]{0,60}\b(?:must|should|shall)\b",
    r"\bdo not (?:tell|reveal|mention|disclose) (?:this )?to (?:the )?(?:user|reader|analyst)\b",
)
INSTRUCTIONS = re.compile("|".join(f"(?:{p})" for p in INSTRUCTION_PATTERNS), re.I)


def has_instructions(text: str) -> bool:
    """Whether the text contains an instruction addressed to a model or its reader (prompt injection)."""
    return bool(INSTRUCTIONS.search(text))
