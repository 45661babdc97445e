// A data directory whose disk a test can fill (F12): the real "disk full" a test can make.
// Where the test may mount (root with CAP_SYS_ADMIN), the directory is a 16 MB tmpfs and filling it
// makes the next write fail with ENOSPC. Where it may not (an unprivileged user, a container that
// drops the capability), the directory is an ordinary temp dir and filling it lowers the writing
// process's file size limit (RLIMIT_FSIZE, with util-linux's prlimit, which needs no privilege for
// one's own processes): the next write past the limit fails with EFBIG. The kernel also sends
// SIGXFSZ, whose default action kills the process (Node resets an inherited "ignore"): this process
// listens to it while the disk is full, and a child Node must be started with IGNORE_SIGXFSZ among
// its options. Either way SQLite meets a real failed write(2) and the service sees the database's own error.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Test } from 'tap'

export interface FillableDisk {
  /** The data directory. */
  readonly dir: string
  /** How the disk is filled: `tmpfs` (ENOSPC) or `file-size-limit` (EFBIG). */
  readonly kind: 'tmpfs' | 'file-size-limit'
  /**
   * Fills the disk under the database `file` for the process `pid` (the one that writes it), after
   * emptying the database's WAL so that the next commit must grow it. Returns what frees it.
   */
  fill(file: string, pid: number): () => void
}

/** A data directory the test can fill: a tmpfs where mounting is allowed, else a file size limit. */
export function fillableDisk(t: Test): FillableDisk {
  const dir = mkdtempSync(join(tmpdir(), 'records-fillable-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    t.comment(`no tmpfs (${String(error).split('\n')[0]}): the disk is filled by a file size limit instead`)
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const fill = (file: string, pid: number): (() => void) => {
      emptyWal(file)
      const free = limitFileSize(pid)
      // Also when the test fails first: the limit would stay on a process that runs other files.
      t.teardown(free)
      return free
    }
    return { dir, kind: 'file-size-limit', fill }
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', dir])
    rmSync(dir, { recursive: true, force: true })
  })
  return { dir, kind: 'tmpfs', fill: (file) => (emptyWal(file), fillTmpfs(dir)) }
}

/** Until the WAL is empty: a checkpoint that met a reader leaves it whole, and its frames would be reused. */
function emptyWal(file: string): void {
  const other = new BetterSqlite3(file)
  other.pragma('busy_timeout = 5000')
  for (let i = 0; i < 100; i++) {
    const [result] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[]
    if (result?.busy === 0 && result.log === 0) break
  }
  other.close()
}

/** Linux refuses to remount read-only a file system with files open for writing: a full one it is. */
function fillTmpfs(dir: string): () => void {
  const filler = join(dir, 'filler')
  try {
    writeFileSync(filler, Buffer.alloc(64 * 1024 * 1024))
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error
  }
  return () => rmSync(filler)
}

/** Node options that make a child Node listen to SIGXFSZ, so that it is not killed by it. */
export const IGNORE_SIGXFSZ = ['--import', 'data:text/javascript,process.on("SIGXFSZ",()=>{})'] as const

const ignore = (): void => undefined

/** Lowers the soft file size limit of `pid` to one byte; what it returns puts the old one back. */
function limitFileSize(pid: number): () => void {
  if (pid === process.pid) process.on('SIGXFSZ', ignore)
  const [soft, hard] = execFileSync('prlimit', [
    '--pid',
    String(pid),
    '--fsize',
    '--raw',
    '--noheadings',
    '-o',
    'SOFT,HARD',
  ])
    .toString()
    .trim()
    .split(/\s+/)
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=1:${hard}`])
  return () => {
    execFileSync('prlimit', ['--pid', String(pid), `--fsize=${soft}:${hard}`])
    process.off('SIGXFSZ', ignore)
  }
}
