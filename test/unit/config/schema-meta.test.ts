// modules.schema.json is compiled (by the build, or at a start without the built validator) without
// ajv's meta-schema check: this test is that check, so a broken schema still fails here, not in production.
import { Ajv } from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import t from 'tap'
import schema from '../../../schema/modules.schema.json' with { type: 'json' }

t.test('schema/modules.schema.json is a valid JSON Schema (draft-07 meta-schema, strict)', async (t) => {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true })
  ;(addFormatsPlugin as unknown as (ajv: Ajv) => Ajv)(ajv)
  t.equal(ajv.validateSchema(schema), true, JSON.stringify(ajv.errors))
  t.doesNotThrow(() => ajv.compile(schema), 'compiles in strict mode')
})
