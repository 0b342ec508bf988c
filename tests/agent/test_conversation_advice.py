"""Each piece of advice the conversation socket's error events give, followed on the same socket: the
message the advice names is then accepted (the real app, the scripted LLM, a scripted model server)."""

from __future__ import annotations

import json

import pytest
from conversation_client import talk
from test_conversation import REPLY, conversation_with
from websockets.exceptions import ConnectionClosed


async def test_every_refusal_s_advice_works_when_followed() -> None:
    async with conversation_with(pace_s=0.0) as (url, _), talk(url) as t:
        await t.until("ready")

        await t.send({"type": "interrupt", "played_s": 0.1})
        refused = await t.until("error")
        assert refused["code"] == "no_turn" and refused["message"].endswith("send a prompt first")
        await t.send({"type": "prompt", "text": "Tell me about the river"})  # a prompt first...
        assert (await t.until("turn_end"))["heard_text"] == REPLY
        await t.send({"type": "interrupt", "played_s": 0.1})  # ...then the interrupt is taken
        assert (await t.until("turn_end", turn="t1"))["interrupted"] is True

        prompt = json.dumps({"type": "prompt", "text": "And tomorrow?"})
        await t.send(prompt.encode())
        refused = await t.until("error")
        assert refused["code"] == "bad_frame" and "send JSON messages as TEXT frames" in refused["message"]
        await t.send(prompt)  # the same JSON, as a TEXT frame
        assert (await t.until("turn_end", turn="t2"))["interrupted"] is False

        await t.send({"type": "goodbye"})
        refused = await t.until("error")
        assert refused["code"] == "unknown_type" and refused["message"].endswith("use prompt, interrupt or bye")
        await t.send({"type": "bye"})
        with pytest.raises(ConnectionClosed):
            while True:
                await t.next()
    assert t.connection.close_code == 1000
