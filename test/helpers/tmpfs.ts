// A data directory on a small tmpfs that a test can fill up (F12): the real "disk full" a test can
// make. Mounting needs root (CAP_SYS_ADMIN); without it the caller's check is skipped loudly (and
// fails in CI).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Test } from 'tap'
import { IN_CI } from './postgres.js'

/** A 16 MB tmpfs for the data directory, or undefined (said loudly) where mounting is not allowed. */
export function mountTmpfs(t: Test): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'records-tmpfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    const message = `cannot mount a tmpfs (${String(error).split('\n')[0]}): the read-only data directory is not tested`
    if (IN_CI) t.fail(message)
    else t.comment(`!!! ${message} !!!`)
    return undefined
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', dir])
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/**
 * Fills the tmpfs at `dir` after emptying the database's WAL: the next commit must grow the WAL
 * and cannot (ENOSPC). Linux refuses to remount read-only a file system with files open for
 * writing, so a full disk is the real fault a test can make. Returns what frees it.
 */
export function fillDisk(dir: string, file: string): () => void {
  const other = new BetterSqlite3(file)
  other.pragma('busy_timeout = 5000')
  // Until the WAL is empty: a checkpoint that met a reader leaves it whole, and its frames would be reused.
  for (let i = 0; i < 100; i++) {
    const [result] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[]
    if (result?.busy === 0 && result.log === 0) break
  }
  other.close()
  const filler = join(dir, 'filler')
  try {
    writeFileSync(filler, Buffer.alloc(64 * 1024 * 1024))
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error
  }
  return () => rmSync(filler)
}
