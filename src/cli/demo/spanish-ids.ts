// Spanish identifiers that pass their own checks: what `records demo` writes where its data file
// asks for {dni}, {plate}, {phone} or {vin}.
import type { Random } from './seeded-random.js'

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE'
/** Plates since 2000 use no vowels, Ñ or Q. */
const PLATE_LETTERS = 'BCDFGHJKLMNPRSTVWXYZ'
/** A VIN never uses I, O or Q (ISO 3779). */
const VIN_CHARACTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'

/** The check letter of a DNI number: the number modulo 23 in the Interior ministry's table. */
export const dniLetter = (number: number): string => DNI_LETTERS[number % 23] as string

/** Does `value` read as a DNI (8 digits) with its right check letter? */
export function isValidDni(value: string): boolean {
  const m = /^(\d{8})([A-Z])$/.exec(value)
  return m !== null && dniLetter(Number(m[1])) === m[2]
}

export function randomDni(random: Random): string {
  const number = random.int(1_000_000, 99_999_999)
  return `${String(number).padStart(8, '0')}${dniLetter(number)}`
}

export function randomPlate(random: Random): string {
  const letters = Array.from({ length: 3 }, () => random.pick([...PLATE_LETTERS])).join('')
  return `${String(random.int(0, 9999)).padStart(4, '0')}${letters}`
}

/** A mobile (6, 7) or landline (9) number of nine digits. */
export function randomPhone(random: Random): string {
  const first = random.pick(['6', '7', '9'])
  return `${first}${String(random.int(0, 99_999_999)).padStart(8, '0')}`
}

export const randomVin = (random: Random): string =>
  Array.from({ length: 17 }, () => random.pick([...VIN_CHARACTERS])).join('')
