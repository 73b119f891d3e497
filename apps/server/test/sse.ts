/** A test client's view of a text/event-stream body. */

export interface SseFrame {
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** Reads a text/event-stream body frame by frame (what a browser's EventSource parses). */
export class SseReader {
  readonly frames: SseFrame[] = [];
  private buffer = '';
  private done = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** Frames until one matches (including those already read); fails after `timeoutMs`. */
  async until(match: (frame: SseFrame) => boolean, timeoutMs = 10_000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.done) throw new Error('stream ended before the expected frame');
      if (Date.now() > deadline) throw new Error('no matching frame in time');
      await this.read(deadline - Date.now());
    }
  }

  /** Resolves when the server ends the stream. */
  async ended(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.done) {
      if (Date.now() > deadline) throw new Error('stream still open');
      await this.read(deadline - Date.now());
    }
  }

  events(name: string): unknown[] {
    return this.frames
      .filter((frame) => frame.event === name)
      .map((frame) => JSON.parse(frame.data ?? 'null') as unknown);
  }

  private async read(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(timeoutMs, 0));
    });
    const result = await Promise.race([this.reader.read(), timeout]).finally(() =>
      clearTimeout(timer),
    );
    if (result === 'timeout') return;
    if (result.done) {
      this.done = true;
      return;
    }
    this.buffer += this.decoder.decode(result.value, { stream: true });
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event' || field === 'data' || field === 'retry') frame[field] = value;
        }
      }
      this.frames.push(frame);
    }
  }
}
