"""The policy surface: the whitelist, the immutable Policy and policy files."""

from villagelab.yamlsource import InputError, YamlSource

from .param import Param
from .policy import Policy, baseline_path, describe, diff, load_policy
from .prompt_family import PromptFamily
from .surface import BUILTIN, Surface, declared
from .whitelist import BY_NAME, WHITELIST

__all__ = [
    "BUILTIN",
    "BY_NAME",
    "WHITELIST",
    "InputError",
    "Param",
    "Policy",
    "PromptFamily",
    "Surface",
    "YamlSource",
    "baseline_path",
    "declared",
    "describe",
    "diff",
    "load_policy",
]
