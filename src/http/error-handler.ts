// The one error handler: every error leaves in the envelope `{ success: false, error, details? }`.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, MESSAGES, badJson, bodyTooLarge, isAppError, unsupportedMediaType } from '../errors.js'

const JSON_ERRORS = new Set([
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
])

/** Fastify's own client errors, worded for our clients. */
function fromFastify(error: FastifyError): AppError | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLarge()
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupportedMediaType()
  if (error.code === 'FST_ERR_BAD_URL') return new AppError('VALIDATION', 400, 'La URL no es válida', { cause: error })
  // A path segment over maxParamLength (100): no record id is that long.
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new AppError('VALIDATION', 414, 'La URL es demasiado larga', { cause: error })
  if (JSON_ERRORS.has(error.code) || error instanceof SyntaxError) return badJson(error)
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) return new AppError('VALIDATION', status, 'Solicitud no válida', { cause: error })
  return undefined
}

export function handleError(
  error: FastifyError | AppError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const known = isAppError(error) ? error : fromFastify(error as FastifyError)
  if (known === undefined || known.statusCode >= 500) {
    if (known?.code === 'INTEGRITY')
      // Stored data failed its check: changed outside the service, or a key is missing. The client
      // gets a clear 500; operators get one fatal line to alert on, naming the record.
      request.log.fatal(
        { err: known.cause ?? error, alert: 'integridad' },
        'request failed: integrity alert, stored data altered or unreadable',
      )
    else request.log.error({ err: known?.cause ?? error }, 'request failed')
    const status = known?.statusCode ?? 500
    void reply
      .code(status)
      .headers(known?.headers ?? {})
      .send({ success: false, error: known?.message ?? MESSAGES.internal })
    return
  }
  if (known.statusCode === 401 || known.statusCode === 403) request.log.info({ code: known.code }, 'access refused')
  void reply
    .code(known.statusCode)
    .headers(known.headers)
    .send({
      success: false,
      error: known.message,
      ...(known.details === undefined ? {} : { details: known.details }),
    })
}
