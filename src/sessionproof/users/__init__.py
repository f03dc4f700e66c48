"""The user side: scripted turns or a simulated user."""

from ._protocol import User, UserReply
from ._scripted import InstructionUser, ScriptedUser
from ._simulated import STOP_TOKENS, SimulatedUser

__all__ = ["STOP_TOKENS", "InstructionUser", "ScriptedUser", "SimulatedUser", "User", "UserReply"]
