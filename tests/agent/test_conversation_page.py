"""The conversation page in a real browser (headless Chromium, audio output faked) against the real agent
app, its page server and a model server that times every word."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from browser import chromium_page
from scripted_model_server import scripted_model_server
from servers import free_port
from test_app import agent_for
from word_server import WordServer

import kokoro_cli.local.web_page
import kokoro_server
from kokoro_cli.local.local_settings import agent_access
from kokoro_cli.local.web_page import local_connect_url, new_token, page_app
from kokoro_processes.servers import agent_server_thread

REPLY = (
    "Rivers are best walked in the morning, when the light is low and the paths are quiet. "
    "Bring water, a hat and good shoes. Start near the old bridge and follow the bank upstream."
)
# Where the mid-answer screenshot goes: docs/images/conversation.png when asked for, else the test's tmp dir.
SCREENSHOT = os.environ.get("CONVERSATION_SCREENSHOT")


async def test_talking_stopping_and_continuing_in_the_browser(tmp_path: Path) -> None:
    server = WordServer(pace_s=0.05)  # pieces are made at twice real time
    page_port, token = free_port(), new_token()
    access = agent_access("127.0.0.1", page_port, frozenset(), frozenset())  # as deploy-agent local --web
    async with scripted_model_server(server) as model_url:
        with (
            agent_for(model_url, REPLY, tokens_per_s=30.0, access=access) as agent_url,
            agent_server_thread(page_app(local_connect_url(agent_url), token), port=page_port) as page_url,
        ):
            async with chromium_page(f"{page_url}/?token={token}") as page:
                await page.wait_for("talk.events.some(e => e.type === 'ready')")
                await page.type_text("#prompt", "Where should I walk today?")
                await page.press_enter()

                await page.wait_for("talk.lit.length >= 6")
                clock = await page.js("talk.audio.currentTime")
                await page.wait_for(f"talk.audio.currentTime > {clock} + 0.3")
                assert await page.js("talk.audioFrames") > 0 and await page.js("playedS(talk.turn)") > 0
                await page.screenshot(Path(SCREENSHOT) if SCREENSHOT else tmp_path / "conversation.png")

                await page.js("document.getElementById('stop').click()")
                end = await page.wait_for("talk.turnEnds.find(e => e.interrupted)")
                assert await page.js("talk.turn.sources.size") == 0, "Stop left audio playing"
                heard = end["heard_text"]
                assert heard and REPLY.startswith(heard) and heard != REPLY, end
                lit = [int(x.split(":")[1]) for x in await page.js("talk.lit") if x.startswith("t1:")]
                assert lit == list(range(len(lit))), "words lit out of order"
                assert len(lit) == len(heard.split()), (lit, heard)  # what lit is what the agent says was heard

                await page.type_text("#prompt", "And after that?")
                await page.press_enter()
                second = await page.wait_for("talk.turnEnds.find(e => e.turn === 't2')")
                assert second["interrupted"] is False and second["heard_text"] == REPLY

                await page.js("window.oldPage = true")
                await page.call("Page.reload")  # same tab, same session id: the conversation continues
                ready = await page.wait_for(
                    "!window.oldPage && window.talk && talk.events.find(e => e.type === 'ready')"
                )
                bubbles = await page.js("[...document.querySelectorAll('#log > div')].map(d => d.textContent)")
    assert [(h["role"], h["text"], h["interrupted"]) for h in ready["history"]] == [
        ("user", "Where should I walk today?", False),
        ("assistant", heard, True),
        ("user", "And after that?", False),
        ("assistant", REPLY, False),
    ]
    assert bubbles[1] == heard, json.dumps(bubbles)


def _page_voices() -> list[str]:
    script = (Path(kokoro_cli.local.web_page.__file__).parent / "web" / "conversation.js").read_text()
    listed = script.split("const VOICES = [", 1)[1].split("];", 1)[0]
    return [voice for voice in re.findall(r'\["(\w*)",', listed) if voice]


def test_the_language_picker_offers_one_installed_voice_of_each_of_the_nine_languages() -> None:
    installed = json.loads((Path(kokoro_server.__file__).parent / "data" / "offline_assets.json").read_text())
    voices = _page_voices()
    assert set(voices) <= set(installed["voices"]), "the page names a voice the server does not have"
    assert sorted(v[0] for v in voices) == sorted("abefhipjz"), "one voice of each language"


async def test_the_picked_language_s_voice_reads_the_answer() -> None:
    server = WordServer(pace_s=0.01)
    page_port, token = free_port(), new_token()
    access = agent_access("127.0.0.1", page_port, frozenset(), frozenset())
    async with scripted_model_server(server) as model_url:
        with (
            agent_for(model_url, "Claro, con mucho gusto. ¿En qué más puedo ayudarle?", access=access) as agent_url,
            agent_server_thread(page_app(local_connect_url(agent_url), token), port=page_port) as page_url,
        ):
            async with chromium_page(f"{page_url}/?token={token}") as page:
                await page.wait_for("talk.events.some(e => e.type === 'ready')")
                await page.js("document.getElementById('voice').value = 'ef_dora'")
                await page.type_text("#prompt", "¿Me ayuda?")
                await page.press_enter()
                await page.wait_for("talk.turnEnds.find(e => e.turn === 't1')")
                await page.js("document.getElementById('voice').value = ''")
                await page.type_text("#prompt", "And in English?")
                await page.press_enter()
                await page.wait_for("talk.turnEnds.find(e => e.turn === 't2')")
    spanish = next((i for i, voice in enumerate(server.voices) if voice != "ef_dora"), len(server.voices))
    assert spanish > 0, server.voices  # the first turn's pieces, every one in the picked voice
    assert server.voices[spanish:] and "ef_dora" not in server.voices[spanish:], server.voices  # then the agent's
