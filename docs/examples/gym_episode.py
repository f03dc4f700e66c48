"""Play demo sessions through sessionproof's Gymnasium environment with a tiny rule policy.

Run it from anywhere (`pip install 'sessionproof[gym]'` first):

    python docs/examples/gym_episode.py
"""

from __future__ import annotations

import json
import math
import re

from sessionproof.envs import SessionEnv

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
ORDER = re.compile(r"\b\d{4}\b")


def policy(observation: str) -> str:
    """Look up what the user's last message names, once; then answer in words."""
    seen = json.loads(observation)
    last = seen["messages"][-1]
    if last["role"] == "user":
        text = last["content"] or ""
        calls = [
            {"name": "find_customer_by_email", "arguments": {"email": e.rstrip(".")}}
            for e in EMAIL.findall(text)
        ] + [{"name": "get_order", "arguments": {"order_id": n}} for n in ORDER.findall(text)]
        if calls:
            return json.dumps({"tool_calls": calls})
    return json.dumps({"content": "Thanks, I have looked that up for you."})


env = SessionEnv("demo", faults="10%", seed=0, shaped_reward=True)
for episode in range(5):
    # Seeded once: later resets draw the next scenarios from the same generator.
    observation, info = env.reset(seed=0 if episode == 0 else None)
    total, done = 0.0, False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation))
        total += float(reward)
        done = terminated or truncated
    verdict = "not judged" if math.isnan(total) else ("pass" if info["verdict"] else "fail")
    print(f"{info['scenario_id']} (trial {info['trial']}): {verdict}, return {total:g}")
env.close()
