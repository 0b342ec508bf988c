// The conversation page: one WebSocket to the agent's /ws, audio played gaplessly with Web Audio,
// each word lit when the audio clock reaches it, Stop = barge-in with the real played_s.
// No build step, no external network. window.talk exposes the page's state to tests.
"use strict";

const SAMPLE_RATE = 24000;
const LEAD_S = 0.05;  // scheduling margin for the first chunk of a turn
const $ = (id) => document.getElementById(id);

const talk = window.talk = {
  socket: null, audio: null, turn: null, session: null,
  events: [], audioFrames: 0, audioBytes: 0, lit: [], turnEnds: [],
};

function sessionId() {
  let id = sessionStorage.getItem("agentSession");
  if (!id) { id = crypto.randomUUID(); sessionStorage.setItem("agentSession", id); }
  return id;  // 36 characters: AgentCore wants 33 or more
}

// The per-run token the command printed in the page's URL: /connect answers only with it. Kept for the
// tab, so a reload or a URL without it still connects.
function pageToken() {
  const given = new URLSearchParams(location.search).get("token");
  if (given) sessionStorage.setItem("pageToken", given);
  return given || sessionStorage.getItem("pageToken") || "";
}

function status(text) { $("status").textContent = text; }

// A word that ends in a Japanese or Chinese character or mark is followed by the next one unspaced.
const WIDE_END = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]$/;

function bubble(cls, text) {
  const el = document.createElement("div");
  el.className = cls;
  if (text) el.textContent = text;
  $("log").appendChild(el);
  return el;
}

async function connect() {
  talk.session = sessionId();
  const reply = await fetch("/connect?" + new URLSearchParams({ session: talk.session, token: pageToken() }));
  const body = await reply.json();
  if (!reply.ok) throw new Error(body.error ? body.error.message : "cannot connect");
  const socket = new WebSocket(body.url);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (m) => (typeof m.data === "string" ? onEvent(JSON.parse(m.data)) : onAudio(m.data));
  socket.onclose = () => { if (talk.socket === socket) { talk.socket = null; status("disconnected: the next prompt reconnects"); } };
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = () => reject(new Error("socket failed")); });
  talk.socket = socket;
}

function onEvent(event) {
  talk.events.push(event);
  if (event.type === "ready") {
    status("connected, session " + talk.session.slice(0, 8) + "...");
    if (!$("log").children.length) showHistory(event.history || []);
  } else if (event.type === "turn_start") {
    startTurn(event);
  } else if (event.type === "text" && isCurrent(event)) {
    talk.turn.written.textContent += event.text;
  } else if (event.type === "words" && isCurrent(event)) {
    for (const w of event.words) {
      const el = document.createElement("span");
      el.className = "word";
      el.textContent = WIDE_END.test(w.text) ? w.text : w.text + " "; // Japanese, Chinese: no spaces
      talk.turn.answer.insertBefore(el, talk.turn.written);
      talk.turn.words.push({ start_s: w.start_s, el: el, index: talk.turn.words.length });
    }
  } else if (event.type === "turn_end") {
    talk.turnEnds.push(event);
    endTurn(event);
  } else if (event.type === "error") {
    status("error " + event.code + ": " + event.message);
  }
}

function showHistory(lines) {
  for (const line of lines) {
    const el = bubble(line.role === "user" ? "user" : "agent", line.text);
    if (line.interrupted) el.classList.add("interrupted");
  }
}

function isCurrent(event) { return talk.turn && talk.turn.id === event.turn; }

function startTurn(event) {
  const answer = bubble("agent");
  const written = document.createElement("span");
  written.className = "written";
  answer.appendChild(written);
  talk.turn = { id: event.turn, answer: answer, written: written, words: [], chunks: [], sources: new Set(),
                nextAt: 0, scheduled_s: 0, stopped: false, ended: null };
  $("stop").disabled = false;
}

function onAudio(data) {
  const turn = talk.turn;
  talk.audioFrames += 1;
  talk.audioBytes += data.byteLength;
  if (!turn || turn.stopped) return;  // audio of a stopped turn is never played
  const pcm = new Int16Array(data);
  const buffer = talk.audio.createBuffer(1, pcm.length, SAMPLE_RATE);
  const samples = buffer.getChannelData(0);
  for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i] / 32768;
  const source = talk.audio.createBufferSource();
  source.buffer = buffer;
  source.connect(talk.audio.destination);
  const at = Math.max(turn.nextAt, talk.audio.currentTime + LEAD_S);
  source.start(at);
  turn.sources.add(source);
  source.onended = () => turn.sources.delete(source);
  turn.chunks.push({ at: at, offset: turn.scheduled_s, dur: buffer.duration });
  turn.scheduled_s += buffer.duration;
  turn.nextAt = at + buffer.duration;
}

// Seconds of the turn's audio the listener has heard, read from the audio clock.
function playedS(turn) {
  if (turn.stopped) return turn.stoppedAt;
  const now = talk.audio.currentTime;
  let played = 0;
  for (const c of turn.chunks) {
    if (now <= c.at) break;
    played = c.offset + Math.min(now - c.at, c.dur);
  }
  return played;
}

function playing(turn) { return turn && !turn.stopped && turn.sources.size > 0; }

// A word is lit once its span has started: the same rule the agent uses for heard_text.
function lightWords(turn, played) {
  for (const w of turn.words) {
    if (w.start_s < played && !w.el.classList.contains("spoken")) {
      w.el.classList.add("spoken");
      talk.lit.push(turn.id + ":" + w.index);
    }
  }
}

function light() {
  const turn = talk.turn;
  if (turn && !turn.stopped) {
    const played = playedS(turn);
    lightWords(turn, played);
    if (turn.ended && !playing(turn) && played >= turn.scheduled_s - 0.01) $("stop").disabled = true;
  }
  requestAnimationFrame(light);
}

function stop() {
  const turn = talk.turn;
  if (!turn || turn.stopped) return null;
  const played = playedS(turn);
  lightWords(turn, played);  // the animation frame may lag the click
  turn.stoppedAt = played;
  turn.stopped = true;
  for (const source of turn.sources) source.stop();
  turn.sources.clear();
  $("stop").disabled = true;
  return played;
}

function endTurn(event) {
  const turn = talk.turn;
  if (!turn || turn.id !== event.turn) return;
  turn.ended = event;
  if (event.interrupted) {
    turn.answer.textContent = event.heard_text;
    turn.answer.classList.add("interrupted");
  }
}

async function ask(text) {
  if (!talk.audio) talk.audio = new AudioContext({ sampleRate: SAMPLE_RATE });
  await talk.audio.resume();
  if (!talk.socket) await connect();
  const wasPlaying = talk.turn && !talk.turn.stopped && (!talk.turn.ended || playing(talk.turn));
  const played = wasPlaying ? stop() : null;
  if (played !== null) talk.socket.send(JSON.stringify({ type: "interrupt", played_s: played }));
  bubble("user", text);
  const voice = $("voice").value;
  talk.socket.send(JSON.stringify(voice ? { type: "prompt", text: text, voice: voice } : { type: "prompt", text: text }));
}

// The language picker: one voice of each of Kokoro's nine languages (the model server lists all 54 and
// their languages); the agent's LLM answers in the language it is written to, and this voice reads it.
const VOICES = [
  ["", "Agent's voice"],
  ["af_heart", "English (US)"],
  ["bf_emma", "English (UK)"],
  ["ef_dora", "Español"],
  ["ff_siwis", "Français"],
  ["if_sara", "Italiano"],
  ["pf_dora", "Português (Brasil)"],
  ["hf_alpha", "हिन्दी"],
  ["jf_alpha", "日本語"],
  ["zf_xiaobei", "中文"],
];
for (const [voice, language] of VOICES) $("voice").add(new Option(language, voice));

$("ask").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("prompt").value.trim();
  if (!text) return;
  $("prompt").value = "";
  ask(text).catch((err) => status("error: " + err.message));
});

$("stop").addEventListener("click", () => {
  const played = stop();
  if (played !== null && talk.socket) talk.socket.send(JSON.stringify({ type: "interrupt", played_s: played }));
});

connect().catch((err) => status("error: " + err.message));
requestAnimationFrame(light);
