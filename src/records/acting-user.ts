// Who acts on records: what scopes, field rules and workflows are decided against.

export interface ActingUser {
  readonly id: string
  readonly role: string
  /** The account fields that access rules name as `$user.<field>` (personal_id in the shipped file). */
  readonly fields: Readonly<Record<string, unknown>>
}

/** `$user.id`, `$user.role` or `$user.<account field>`; null when the account has no value. */
export function userAttribute(user: ActingUser, name: string): unknown {
  if (name === 'id') return user.id
  if (name === 'role') return user.role
  const value = user.fields[name]
  return value === undefined || value === '' ? null : value
}
