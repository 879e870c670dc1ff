/**
 * Starting git from a small helper process instead of the server's own.
 *
 * Node starts a process with fork(), which copies the parent's page tables,
 * and the calling thread waits until the child has exec'd. The server's
 * resident memory is 180-430 MB under load, and there each spawn held its
 * event loop for about 20 ms (measured here: spawn p50 2 ms at 47 MB, 7 ms at
 * 157 MB, 22 ms at 366 MB), more when the machine is busy: in
 * bench/sustained.ts `ChildProcess.spawn` was 18 % of the server's main
 * thread, two spawns per mirrored turn, which stalled every request and every
 * other mirror pass meanwhile. The launcher is a plain node process with no
 * modules of ours (about 45 MB), started once at the first git run; it spawns
 * each git for us and relays its stdin, stdout, stderr and exit over an IPC
 * channel, so the server pays a message instead of a fork.
 *
 * The launcher never keeps the server alive (its handles are unref'd while no
 * git runs), exits when the server does (its channel closes), and when it
 * dies itself the runs in flight fail as git killed by a signal would, and
 * the next run starts a new one. If it cannot be started at all (or with
 * `ENTITY_MEMORY_GIT_LAUNCHER=off`), git is spawned directly, as before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';

/** What the runner needs of a started git: a ChildProcess has it, and so has a launched one. */
export interface GitChild {
  stdin: Writable | null;
  stdout: EventEmitter | null;
  stderr: EventEmitter | null;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this;
  on(event: 'close' | 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  kill(signal?: NodeJS.Signals): boolean;
}

export interface LaunchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Give git a stdin pipe (else /dev/null). */
  pipeStdin: boolean;
}

type ToLauncher =
  | { t: 'spawn'; id: number; file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; stdin: boolean }
  | { t: 'in'; id: number; n: number; d: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'kill'; id: number; signal: string };
type FromLauncher =
  | { t: 'out' | 'err'; id: number; d: Uint8Array }
  | { t: 'ack'; id: number; n: number }
  | { t: 'error'; id: number; code?: string; errno?: number; syscall?: string; message: string }
  | { t: 'exit' | 'close'; id: number; code: number | null; signal: NodeJS.Signals | null };

/** The launcher's program (CommonJS, run with `node -e`): spawn on request, relay everything. */
const LAUNCHER_SOURCE = `
const { spawn } = require('node:child_process');
const children = new Map();
const send = (m) => process.send(m);
process.on('message', (m) => {
  if (m.t === 'spawn') {
    let child;
    try {
      child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: [m.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (e) {
      send({ t: 'error', id: m.id, code: e.code, errno: e.errno, syscall: e.syscall, message: e.message });
      return;
    }
    children.set(m.id, child);
    if (child.stdin) child.stdin.on('error', () => {});
    child.stdout.on('data', (d) => send({ t: 'out', id: m.id, d }));
    child.stderr.on('data', (d) => send({ t: 'err', id: m.id, d }));
    child.on('error', (e) => send({ t: 'error', id: m.id, code: e.code, errno: e.errno, syscall: e.syscall, message: e.message }));
    child.on('exit', (code, signal) => send({ t: 'exit', id: m.id, code, signal }));
    child.on('close', (code, signal) => { children.delete(m.id); send({ t: 'close', id: m.id, code, signal }); });
  } else if (m.t === 'in') {
    const child = children.get(m.id);
    if (!child || !child.stdin || child.stdin.destroyed) send({ t: 'ack', id: m.id, n: m.n });
    else child.stdin.write(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength), () => send({ t: 'ack', id: m.id, n: m.n }));
  } else if (m.t === 'end') {
    const child = children.get(m.id);
    if (child && child.stdin) child.stdin.end();
  } else if (m.t === 'kill') {
    const child = children.get(m.id);
    if (child) child.kill(m.signal);
  }
});
process.on('disconnect', () => process.exit(0));
`;

const asBuffer = (d: Uint8Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength);

/** A git started by the launcher, seen through its messages. */
class LaunchedGit extends EventEmitter implements GitChild {
  readonly stdout = new EventEmitter();
  readonly stderr = new EventEmitter();
  readonly stdin: Writable | null;
  private readonly acks = new Map<number, (error?: Error | null) => void>();
  private chunks = 0;
  closed = false;

  constructor(
    private readonly id: number,
    private readonly send: (message: ToLauncher) => void,
    pipeStdin: boolean,
  ) {
    super();
    this.stdin = pipeStdin
      ? new Writable({
          // A chunk is acknowledged once git's pipe took it, so backpressure reaches the writer.
          writev: (chunks, done) => this.write(Buffer.concat(chunks.map((c) => c.chunk as Buffer)), done),
          final: (done) => {
            if (!this.closed) this.send({ t: 'end', id: this.id });
            done();
          },
        })
      : null;
  }

  private write(data: Buffer, done: (error?: Error | null) => void): void {
    if (this.closed) return done();
    const n = ++this.chunks;
    this.acks.set(n, done);
    this.send({ t: 'in', id: this.id, n, d: data });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.closed) return false;
    this.send({ t: 'kill', id: this.id, signal });
    return true;
  }

  receive(message: FromLauncher): void {
    switch (message.t) {
      case 'out':
        this.stdout.emit('data', asBuffer(message.d));
        break;
      case 'err':
        this.stderr.emit('data', asBuffer(message.d));
        break;
      case 'ack':
        this.acks.get(message.n)?.();
        this.acks.delete(message.n);
        break;
      case 'error': {
        const error: NodeJS.ErrnoException = new Error(message.message);
        if (message.code !== undefined) error.code = message.code;
        if (message.errno !== undefined) error.errno = message.errno;
        if (message.syscall !== undefined) error.syscall = message.syscall;
        this.emit('error', error);
        break;
      }
      case 'exit':
        this.emit('exit', message.code, message.signal);
        break;
      case 'close':
        this.end();
        this.emit('close', message.code, message.signal);
        break;
    }
  }

  /** No more messages will come: writes in flight are done (git's stdin is gone, as on EPIPE). */
  end(): void {
    this.closed = true;
    for (const done of this.acks.values()) done();
    this.acks.clear();
  }
}

/** The launcher process and the runs it has in flight. */
class Launcher {
  private readonly runs = new Map<number, LaunchedGit>();
  private nextId = 1;

  private constructor(private readonly process: ChildProcess) {
    process.on('message', (message: FromLauncher) => this.runs.get(message.id)?.receive(message));
    process.on('exit', () => this.fail());
    process.on('error', () => this.fail());
    this.idle();
  }

  /** Starts the launcher; null when it cannot be (then git is spawned directly). */
  static start(): Launcher | null {
    const env: NodeJS.ProcessEnv = { ...process.env };
    // A loader of ours (tsx in development) would only slow the launcher down and grow it.
    delete env.NODE_OPTIONS;
    try {
      const child = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', env, windowsHide: true });
      return new Launcher(child);
    } catch {
      return null;
    }
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null && this.process.connected;
  }

  launch(file: string, args: string[], options: LaunchOptions): GitChild {
    const id = this.nextId++;
    const run = new LaunchedGit(id, (message) => this.send(message), options.pipeStdin);
    this.runs.set(id, run);
    if (this.runs.size === 1) this.busy();
    run.on('close', () => {
      this.runs.delete(id);
      if (this.runs.size === 0) this.idle();
    });
    this.send({ t: 'spawn', id, file, args, cwd: options.cwd, env: options.env, stdin: options.pipeStdin });
    return run;
  }

  private send(message: ToLauncher): void {
    if (!this.alive) return this.fail();
    this.process.send(message, (error: Error | null) => {
      if (error) this.fail();
    });
  }

  /** The launcher is gone: its runs end as git killed by a signal would. */
  private fail(): void {
    if (launcher === this) launcher = undefined;
    const runs = [...this.runs.values()];
    this.runs.clear();
    for (const run of runs) {
      if (run.closed) continue;
      run.end();
      // Later, not now: a run whose spawn message could not be sent has no listeners yet.
      setImmediate(() => {
        run.emit('exit', null, 'SIGKILL');
        run.emit('close', null, 'SIGKILL');
      });
    }
    if (this.alive) this.process.kill('SIGKILL');
  }

  /** Nothing in flight: the launcher must not keep the server (or a test, or a CLI command) alive. */
  private idle(): void {
    this.process.unref();
    this.process.channel?.unref();
  }

  private busy(): void {
    this.process.ref();
    this.process.channel?.ref();
  }
}

let launcher: Launcher | undefined;
/** `ENTITY_MEMORY_GIT_LAUNCHER=off` spawns git from the server's process, as before (to compare, or if the launcher misbehaves). */
let unavailable = process.env.ENTITY_MEMORY_GIT_LAUNCHER === 'off';

/** The launcher's process id, or undefined when none runs (for tests). */
export function gitLauncherPid(): number | undefined {
  return launcher?.alive ? launcher.pid : undefined;
}

/**
 * Starts `file` with `args` from the launcher (started at the first call),
 * or directly when the launcher cannot be started. Failures to start git
 * (ENOENT, a missing cwd) arrive as the `error` event, as with `spawn`.
 */
export function launchGit(file: string, args: string[], options: LaunchOptions): GitChild {
  if (!unavailable && (launcher === undefined || !launcher.alive)) {
    launcher = Launcher.start() ?? undefined;
    unavailable = launcher === undefined;
  }
  if (launcher) return launcher.launch(file, args, options);
  return spawn(file, args, { cwd: options.cwd, env: options.env, stdio: [options.pipeStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], windowsHide: true });
}
