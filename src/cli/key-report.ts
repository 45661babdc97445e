// What `records keys rotate|status` tell the operator about old keys: an old key may
// leave the configuration only when no stored value and no running instance uses it.
import { liveInstances, type InstanceReport } from '../db/keys/instance-heartbeat.js'
import type { Database } from '../db/database.js'

export interface KeyVerdict {
  readonly activeKeyId: string
  /** Configured keys other than the active one. */
  readonly oldKeys: readonly string[]
  /** Stored values per key id. */
  readonly usage: Readonly<Record<string, number>>
  readonly instances: readonly InstanceReport[]
  /** True when the old keys may be removed from every configuration. */
  readonly oldKeysRemovable: boolean
  /** Why not, in plain words; empty when they may go. */
  readonly reasons: readonly string[]
}

export const describeInstance = (i: InstanceReport): string => `${i.host} pid ${i.pid} (desde ${i.startedAt})`

/** Polls the running instances until each satisfies `ready` or `waitMs` passes; returns those that do not. */
export async function waitForInstances(
  database: Database,
  ready: (i: InstanceReport) => boolean,
  waitMs: number,
): Promise<InstanceReport[]> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const lagging = (await liveInstances(database)).filter((i) => !ready(i))
    if (lagging.length === 0 || Date.now() >= deadline) return lagging
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** `configured`: this configuration's keys, the first being where a rotation from here goes. */
export function keyVerdict(
  activeKeyId: string,
  configured: readonly string[],
  usage: ReadonlyMap<string, number>,
  instances: readonly InstanceReport[],
): KeyVerdict {
  const reasons: string[] = []
  const target = configured[0]
  if (target !== undefined && target !== activeKeyId)
    reasons.push(
      `la clave ${target}, la primera configurada, aún no es la activa (${activeKeyId}): ejecute records keys rotate`,
    )
  for (const [keyId, n] of usage)
    if (keyId !== activeKeyId && n > 0)
      reasons.push(
        `${n} ${n === 1 ? 'valor guardado sigue' : 'valores guardados siguen'} cifrados con la clave ${keyId} (ejecute records keys rotate)`,
      )
  for (const i of instances)
    if (i.activeKeyId !== activeKeyId)
      reasons.push(`la instancia ${describeInstance(i)} aún cifra con la clave ${i.activeKeyId}`)
  return {
    activeKeyId,
    oldKeys: configured.filter((k) => k !== activeKeyId),
    usage: Object.fromEntries(usage),
    instances,
    oldKeysRemovable: reasons.length === 0,
    reasons,
  }
}

/** The lines that say whether the old keys may go, and what still needs them. */
export function verdictLines(verdict: KeyVerdict): string[] {
  const n = verdict.instances.length
  if (!verdict.oldKeysRemovable)
    return ['NO quite todavía las claves anteriores de la configuración:', ...verdict.reasons.map((r) => `  - ${r}`)]
  if (verdict.oldKeys.length === 0) return [`Solo está configurada la clave activa ${verdict.activeKeyId}.`]
  return [
    `Ningún valor guardado usa ya ${verdict.oldKeys.length === 1 ? 'la clave' : 'las claves'} ${verdict.oldKeys.join(', ')} y ` +
      `${n === 0 ? 'no hay instancias en marcha' : n === 1 ? 'la instancia en marcha cifra' : `las ${n} instancias en marcha cifran`}` +
      `${n === 0 ? '' : ` con ${verdict.activeKeyId}`}: ` +
      'puede quitar las anteriores de la configuración de cada instancia.',
    'Consérvelas junto a las copias de seguridad hechas antes de esta rotación: restaurarlas las necesita.',
  ]
}
