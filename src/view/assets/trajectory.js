// polar view, trajectory page: one export row at a time as coloured token text, virtualised (only visible lines exist).

const LINE_HEIGHT = 18;
const MAX_LINE_CHARS = 140;
const OVERSCAN = 30;

const view = document.getElementById('token-view');
const select = document.getElementById('row-select');
const info = document.getElementById('token-info');
const stats = document.getElementById('row-stats');
const heatButton = document.getElementById('heat-toggle');

/** Visible text of a token: newlines as ↵, tabs as →, the raw id when there is no text. */
function shown(text) {
  return text.replace(/\n/g, '↵').replace(/\t/g, '→');
}

/** Heat colour of a trained token: green for likely, red for unlikely (p = exp(logprob)). */
function heat(logprob) {
  const p = Math.exp(Math.max(-20, logprob));
  return `hsl(${Math.round(120 * p)} 75% 82%)`;
}

/** Tokens per request: the first window paints at once, the rest stream in behind it. */
const WINDOW = 16384;
/** Token text by id, shared by every row of the page (each distinct id arrives once per window at most). */
const texts = Object.create(null);

function decodeBase64(text, Type) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Type(bytes.buffer);
}

/** Extends the line layout over tokens [from, to): a new line when 140 characters are full or after a newline. */
function extendLayout(state, from, to) {
  const { row, lines } = state;
  for (let i = from; i < to; i++) {
    const text = texts[row.ids[i]];
    const length = text === undefined ? String(row.ids[i]).length + 2 : text.length;
    if (state.chars > 0 && state.chars + length > MAX_LINE_CHARS) {
      lines.push(i);
      state.chars = 0;
    }
    state.chars += length;
    if (text !== undefined && text.includes('\n') && i + 1 < row.length) {
      lines.push(i + 1);
      state.chars = 0;
    }
  }
}

let current = null;

function tokenClass(row, i) {
  const kind = row.kinds[i];
  return kind === 0 ? 'p' : kind === 2 ? 't' : 'c';
}

function renderVisible(force = false) {
  if (!current) return;
  const { row, lines, inner, turnStarts } = current;
  const first = Math.max(0, Math.floor(view.scrollTop / LINE_HEIGHT) - OVERSCAN);
  const last = Math.min(lines.length, Math.ceil((view.scrollTop + view.clientHeight) / LINE_HEIGHT) + OVERSCAN);
  if (!force && current.first === first && current.last === last) return;
  current.first = first;
  current.last = last;
  const fragment = document.createDocumentFragment();
  for (let line = first; line < last; line++) {
    const div = document.createElement('div');
    div.className = 'tv-line';
    div.style.top = `${line * LINE_HEIGHT}px`;
    const number = document.createElement('span');
    number.className = 'tv-no';
    number.textContent = String(lines[line]);
    div.append(number);
    const end = line + 1 < lines.length ? lines[line + 1] : row.loaded;
    for (let i = lines[line]; i < end; i++) {
      const span = document.createElement('span');
      const id = row.ids[i];
      const text = texts[id];
      let className = tokenClass(row, i);
      if (turnStarts.has(i)) className += current.splitStarts.has(i) ? ' turn split' : ' turn';
      if (text !== undefined && /^<\|.*\|>$|^<\/?(think|tool_call|tool_response)>$/.test(text)) className += ' special';
      span.className = className;
      span.dataset.i = String(i);
      span.textContent = text === undefined ? `⟨${id}⟩` : shown(text);
      if (className.startsWith('t')) span.style.setProperty('--heat', heat(row.logprobs[i]));
      div.append(span);
    }
    fragment.append(div);
  }
  inner.replaceChildren(fragment);
}

function describe(i) {
  const { row, turnStarts } = current;
  const id = row.ids[i];
  const text = texts[id];
  const kind = row.kinds[i] === 0 ? 'prompt (context, never trained)' : row.kinds[i] === 2 ? 'trained (mask 1)' : 'interstitial (mask 0)';
  const logprob = row.logprobs[i];
  const turn = turnStarts.get(i);
  const split = current.splitStarts.get(i);
  return `token ${i} · id ${id}${text === undefined ? '' : ` · ${JSON.stringify(text)}`} · ${kind}${Number.isNaN(logprob) ? '' : ` · logprob ${logprob.toFixed(4)} (p ${Math.exp(logprob).toFixed(3)})`}${turn === undefined ? '' : ` · call ${turn} starts here`}${split === undefined ? '' : ` (starts this row: ${split})`}`;
}

async function fetchWindow(index, offset) {
  const url = `${view.dataset.api.replace('{row}', String(index))}&offset=${offset}&limit=${WINDOW}`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not load row ${index} at token ${offset}: HTTP ${response.status}`);
  const body = await response.json();
  Object.assign(texts, body.texts);
  return body;
}

/** Copies one window into the row's arrays and lays it out. */
function addWindow(state, body) {
  const { row } = state;
  row.ids.set(decodeBase64(body.ids, body.idsType === 'uint32' ? Uint32Array : Float64Array), body.offset);
  row.kinds.set(decodeBase64(body.kinds, Uint8Array), body.offset);
  row.logprobs.set(decodeBase64(body.logprobs, Float64Array), body.offset);
  row.loaded = body.offset + body.count;
  extendLayout(state, body.offset, row.loaded);
  state.inner.style.height = `${state.lines.length * LINE_HEIGHT}px`;
}

function showStats(row, body) {
  stats.innerHTML = '';
  stats.append(
    Object.assign(document.createElement('span'), { textContent: `${row.length} tokens: ` }),
    Object.assign(document.createElement('span'), { textContent: String(body.promptLength), title: 'prompt tokens' }),
    document.createTextNode(' prompt, '),
    Object.assign(document.createElement('span'), { textContent: String(body.trained) }),
    document.createTextNode(' trained, '),
    Object.assign(document.createElement('span'), { textContent: String(body.masked) }),
    document.createTextNode(` masked · text: ${body.textSource}`),
    Object.assign(document.createElement('span'), { className: 'muted' }),
  );
  stats.children[2].dataset.testid = 'row-trained';
  stats.children[3].dataset.testid = 'row-masked';
}

function showProgress() {
  const note = stats.lastElementChild;
  if (note && current) note.textContent = current.row.loaded < current.row.length ? ` · ${current.row.loaded} of ${current.row.length} tokens loaded` : ` · ${current.lines.length} lines`;
}

async function loadRow(index) {
  const started = performance.now();
  view.setAttribute('aria-busy', 'true');
  delete view.dataset.complete;
  let body;
  try {
    body = await fetchWindow(index, 0);
  } catch (error) {
    view.textContent = error.message;
    return;
  }
  const row = { length: body.length, promptLength: body.promptLength, loaded: 0, ids: new Float64Array(body.length), kinds: new Uint8Array(body.length), logprobs: new Float64Array(body.length) };
  const turnStarts = new Map(body.turns.map((turn) => [body.promptLength + turn.responseOffset, turn.callId]));
  const splitKinds = new Map((body.splits ?? []).map((split) => [split.callId, split.reason.kind]));
  const splitStarts = new Map([...turnStarts].filter(([, callId]) => splitKinds.has(callId)).map(([at, callId]) => [at, splitKinds.get(callId)]));
  const inner = document.createElement('div');
  inner.className = 'tv-inner';
  view.replaceChildren(inner);
  view.scrollTop = 0;
  const state = { row, lines: [0], chars: 0, inner, turnStarts, splitStarts, first: -1, last: -1 };
  current = state;
  addWindow(state, body);
  renderVisible(true);
  showStats(row, body);
  showProgress();
  view.removeAttribute('aria-busy');
  view.dataset.renderMs = String(Math.round(performance.now() - started));
  view.dataset.readyAt = String(Math.round(performance.now()));
  view.dataset.loadedRow = String(index);
  // The rest of the row streams in behind the first window; switching rows stops it.
  while (current === state && row.loaded < row.length) {
    try {
      addWindow(state, await fetchWindow(index, row.loaded));
    } catch (error) {
      stats.lastElementChild.textContent = ` · ${error.message}`;
      return;
    }
    if (current !== state) return;
    renderVisible(true);
    showProgress();
  }
  if (current === state) view.dataset.complete = String(Math.round(performance.now()));
}

if (view) {
  view.addEventListener('scroll', () => requestAnimationFrame(renderVisible), { passive: true });
  let hovered = null;
  view.addEventListener('mouseover', (event) => {
    const span = event.target.closest('span[data-i]');
    if (!span || !current) return;
    hovered?.classList.remove('hover');
    hovered = span;
    span.classList.add('hover');
    const text = describe(Number(span.dataset.i));
    info.textContent = text;
    span.title = text;
  });
  view.addEventListener('keydown', (event) => {
    const pages = { PageDown: view.clientHeight, PageUp: -view.clientHeight, ArrowDown: LINE_HEIGHT * 3, ArrowUp: -LINE_HEIGHT * 3 };
    if (event.key in pages) {
      view.scrollTop += pages[event.key];
      event.preventDefault();
    } else if (event.key === 'Home' || event.key === 'End') {
      view.scrollTop = event.key === 'Home' ? 0 : view.scrollHeight;
      event.preventDefault();
    }
  });
  /** Scrolls to the next (or previous) call start, the first token the model sampled in that call. */
  const jumpToCall = (step) => {
    if (!current) return;
    const starts = [...current.turnStarts.keys()].filter((at) => at < current.row.loaded).sort((a, b) => a - b);
    const lineOf = (token) => {
      let low = 0;
      let high = current.lines.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if (current.lines[mid] <= token) low = mid;
        else high = mid - 1;
      }
      return low;
    };
    const top = Math.round(view.scrollTop / LINE_HEIGHT);
    const lines = starts.map(lineOf);
    const target = step > 0 ? lines.find((line) => line > top) : lines.reverse().find((line) => line < top);
    if (target === undefined) return;
    view.scrollTop = target * LINE_HEIGHT;
    renderVisible();
  };
  const toggleHeat = () => {
    const on = view.classList.toggle('heat');
    heatButton.setAttribute('aria-pressed', String(on));
  };
  heatButton.addEventListener('click', toggleHeat);
  document.getElementById('next-call')?.addEventListener('click', () => jumpToCall(1));
  document.getElementById('prev-call')?.addEventListener('click', () => jumpToCall(-1));
  document.addEventListener('keydown', (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'h') toggleHeat();
    else if (event.key === 'n') jumpToCall(1);
    else if (event.key === 'p') jumpToCall(-1);
  });
  select.addEventListener('change', () => loadRow(Number(select.value)));
  const fromHash = /row=(\d+)/.exec(location.hash);
  if (fromHash && select.querySelector(`option[value="${fromHash[1]}"]`)) select.value = fromHash[1];
  loadRow(Number(select.value));
}
