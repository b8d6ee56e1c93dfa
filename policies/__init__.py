"""The policy surface: the whitelist, the immutable Policy and policy files."""

from villagelab.yamlsource import InputError, YamlSource

from .param import Param
from .policy import Policy, baseline_path, describe, diff, load_policy
from .whitelist import BY_NAME, WHITELIST

__all__ = [
    "BY_NAME",
    "WHITELIST",
    "InputError",
    "Param",
    "Policy",
    "YamlSource",
    "baseline_path",
    "describe",
    "diff",
    "load_policy",
]
