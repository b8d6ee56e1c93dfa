"""The LLM-backed agent's machinery: any OpenAI-compatible chat endpoint, structured output,
a content-addressed response cache, accounting and budgets, and prompts from frozen files."""

from .accounting import (
    Accounted,
    Budgets,
    ModelCall,
    estimated_cost,
    summarise,
    trial_metrics,
    usage_lines,
)
from .cache import Cached, ResponseCache
from .calls import (
    BudgetExhausted,
    CacheMiss,
    ChatCall,
    ChatModel,
    ChatReply,
    EndpointFailure,
    FormatRefused,
    LLMFailure,
    Message,
    Purpose,
    ReplyOutcome,
)
from .client import HttpModel, Retrying, connect
from .config import LLMConfig, load_llm_config
from .endpoint import CallSlots, public_endpoint
from .factory import LLMAgentFactory, LLMAgents, agent_options
from .formats import StructuredOutput
from .model import open_model
from .prompts import raw_numbers
from .structured import ReplyInvalid, ask, parse

llm_agent = LLMAgentFactory()  # what `--agent llm` names: harness.agents.llm:llm_agent

__all__ = [
    "Accounted",
    "BudgetExhausted",
    "Budgets",
    "CacheMiss",
    "Cached",
    "CallSlots",
    "ChatCall",
    "ChatModel",
    "ChatReply",
    "EndpointFailure",
    "FormatRefused",
    "HttpModel",
    "LLMAgentFactory",
    "LLMAgents",
    "LLMConfig",
    "LLMFailure",
    "Message",
    "ModelCall",
    "Purpose",
    "ReplyInvalid",
    "ReplyOutcome",
    "ResponseCache",
    "Retrying",
    "StructuredOutput",
    "agent_options",
    "ask",
    "connect",
    "estimated_cost",
    "llm_agent",
    "load_llm_config",
    "open_model",
    "parse",
    "public_endpoint",
    "raw_numbers",
    "summarise",
    "trial_metrics",
    "usage_lines",
]
