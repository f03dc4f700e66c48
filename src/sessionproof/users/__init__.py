"""The user side: scripted turns or a simulated user.

Every name below is imported on first use (PEP 562): the user protocol and the scripted
users load without the simulated user's model adapters (the agents, asyncio).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._protocol import User, UserReply
    from ._scripted import InstructionUser, ScriptedUser
    from ._simulated import SimulatedUser

_MODULE_OF: dict[str, str] = {
    "InstructionUser": "._scripted",
    "ScriptedUser": "._scripted",
    "SimulatedUser": "._simulated",
    "User": "._protocol",
    "UserReply": "._protocol",
}
"""Each public name -> the submodule that defines it."""

__all__ = [
    "InstructionUser",
    "ScriptedUser",
    "SimulatedUser",
    "User",
    "UserReply",
]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF, submodules=True)
