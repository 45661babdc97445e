// The columns every entry of the audit chain (D18) has had from the start, in stored order: what
// the chain's inserts bind, an audit export's CSV header and the OpenAPI entry's required keys
// share this one list. The request columns of a consultation (D29) follow them (db/system-tables.ts).
export const AUDIT_CHAIN_COLUMNS = [
  'seq',
  'at',
  'user_id',
  'action',
  'module',
  'record_id',
  'version',
  'record_hash',
  'fields',
  'prev_hash',
  'hash',
] as const
