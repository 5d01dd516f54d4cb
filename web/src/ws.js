// A WebSocket to the server that reconnects by itself: exponential backoff with jitter (0.5 s
// doubling to 10 s), a ping every 20 s, and a connection that sends no pong within 8 s is
// considered dead and replaced. The address is asked for again before each attempt, since a
// restarted server may listen elsewhere.

const PING_MS = 20000;
const PONG_TIMEOUT_MS = 8000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10000;

export class Socket {
  // resolveUrl: async () => url. handlers: {message(obj), open(), close(delayMs), state(s)}.
  constructor(resolveUrl, handlers) {
    this.resolveUrl = resolveUrl;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.state = 'idle';
    this.retryAt = 0;
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  setState(s) {
    this.state = s;
    this.handlers.state && this.handlers.state(s, this);
  }

  async connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) return;
    this.setState('connecting');
    let url;
    try {
      url = await this.resolveUrl();
    } catch {
      this.scheduleReconnect();
      return;
    }
    let ws;
    try {
      ws = new WebSocket(url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.setState('open');
      this.startPing();
      this.handlers.open && this.handlers.open();
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === 'pong') {
        clearTimeout(this.pongTimer);
        return;
      }
      this.handlers.message(msg);
    };
    ws.onerror = () => {
      /* onclose follows and handles it */
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      this.scheduleReconnect();
    };
  }

  scheduleReconnect() {
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.8 + 0.4 * Math.random()));
    this.attempt++;
    this.retryAt = Date.now() + delay;
    this.setState('reconnecting');
    this.handlers.close && this.handlers.close(delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  // Try now (the user asked, or the page became visible again).
  reconnectNow() {
    if (this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.send({ op: 'ping' })) return;
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.drop(), PONG_TIMEOUT_MS);
    }, PING_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  // The connection looks dead: close it and reconnect.
  drop() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.stopPing();
    try {
      ws.close();
    } catch {
      /* already closing */
    }
    this.scheduleReconnect();
  }

  send(obj) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }
}
