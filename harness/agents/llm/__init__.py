"""The LLM-backed agent's machinery: any OpenAI-compatible chat endpoint, structured output,
a content-addressed response cache, accounting and budgets, and prompts from frozen files."""

from .accounting import Accounted, Budgets, CallRow, estimated_cost, summarise
from .cache import Cached, ResponseCache
from .calls import (
    BudgetExhausted,
    CacheMiss,
    ChatCall,
    ChatModel,
    ChatReply,
    EndpointFailure,
    LLMFailure,
    Message,
    Purpose,
)
from .client import HttpModel, Retrying, connect
from .config import LLMConfig, load_llm_config
from .endpoint import CallSlots, public_endpoint
from .model import open_model
from .prompts import raw_numbers
from .structured import ReplyInvalid, ask, parse

__all__ = [
    "Accounted",
    "BudgetExhausted",
    "Budgets",
    "CacheMiss",
    "Cached",
    "CallRow",
    "CallSlots",
    "ChatCall",
    "ChatModel",
    "ChatReply",
    "EndpointFailure",
    "HttpModel",
    "LLMConfig",
    "LLMFailure",
    "Message",
    "Purpose",
    "ReplyInvalid",
    "ResponseCache",
    "Retrying",
    "ask",
    "connect",
    "estimated_cost",
    "load_llm_config",
    "open_model",
    "parse",
    "public_endpoint",
    "raw_numbers",
    "summarise",
]
