"""Gymnasium, the optional extra `sessionproof[gym]`: imported here once, so that using
`SessionEnv` without it raises `ConfigError` saying what to install."""

from __future__ import annotations

from ..errors import ConfigError

GYM_EXTRA = "pip install 'sessionproof[gym]'"
"""What installs Gymnasium for `SessionEnv`."""

try:
    import gymnasium as gymnasium
    from gymnasium.error import ResetNeeded as ResetNeeded
    from gymnasium.spaces import Text as Text
except ImportError as exc:  # the optional extra is missing
    raise ConfigError(f"SessionEnv needs Gymnasium ({exc}): {GYM_EXTRA}") from None
