/**
 * One status line at the bottom of a terminal (the progress of `abha-link
 * submit`), with result lines printed above it, whole.
 *
 * Written for this one job instead of a progress-bar library: the one used
 * before (cli-progress) held lines given to it until its next redraw and
 * dropped those still held when it stopped, and turned the terminal's line
 * wrapping off for the whole run, so that every line printed meanwhile was
 * cut at the terminal's width. Here a result line is written at once (the
 * status line is erased first, then drawn again below it), wrapping is never
 * touched, and the status line itself is cut to the terminal's width so
 * that it always fits on one row and can be erased with a carriage return.
 *
 * Only for a terminal that understands the erase-line escape: the CLI falls
 * back to plain progress lines when TERM is `dumb` or unset.
 */

/** The stream the status line is drawn on (stderr). */
export interface StatusStream {
  write(text: string): unknown;
  readonly columns?: number;
}

/** True when `stream` is a terminal that can show a status line (not TERM=dumb). */
export function canDrawStatus(stream: { isTTY?: boolean }, term: string | undefined): boolean {
  return stream.isTTY === true && term !== undefined && term !== '' && term !== 'dumb';
}

/** Erase the current row: back to its start, then clear it. */
const ERASE = '\r\x1b[2K';

export interface StatusLine {
  /** Erases the status line, runs `print` (which writes whole lines to the same terminal), then draws it again. */
  above(print: () => Promise<void> | void): Promise<void>;
  /** Sets the status text; drawn at once when `now`, else at the next tick. */
  set(text: string, now?: boolean): void;
  /** Erases the status line for good (the summary follows on a clean row). */
  stop(): void;
}

/**
 * A status line on `stream`, redrawn at most every `intervalMs`.
 *
 * @example
 * const status = statusLine(process.stderr)
 * status.set('submit: 3 done')
 * await status.above(() => writeOut('item 1 acknowledged\n'))
 * status.stop()
 */
export function statusLine(stream: StatusStream, intervalMs = 100): StatusLine {
  let text = '';
  let shown = false;
  let dirty = false;
  let stopped = false;
  const fit = (s: string): string => {
    // One column short of the width: a full row would leave the cursor past its end on some terminals.
    const width = Math.max(10, (stream.columns ?? 80) - 1);
    const chars = [...s];
    return chars.length <= width ? s : `${chars.slice(0, width - 1).join('')}…`;
  };
  const draw = (): void => {
    if (stopped) return;
    stream.write(`${ERASE}${fit(text)}`);
    shown = true;
    dirty = false;
  };
  const erase = (): void => {
    if (shown) stream.write(ERASE);
    shown = false;
  };
  const timer = setInterval(() => {
    if (dirty) draw();
  }, intervalMs);
  timer.unref();
  return {
    async above(print) {
      erase();
      try {
        await print();
      } finally {
        if (text !== '') draw();
      }
    },
    set(next, now = false) {
      text = next;
      dirty = true;
      if (now) draw();
    },
    stop() {
      if (stopped) return;
      clearInterval(timer);
      erase();
      stopped = true;
    },
  };
}
