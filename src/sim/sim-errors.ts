// vLLM-shaped HTTP errors of the simulator: `{error:{message,type,param,code}}` with vLLM's type names.
import type { ErrorResponseWire } from '../upstream/vllm-api-types.js';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  408: 'RequestTimeoutError',
  413: 'PayloadTooLargeError',
  422: 'UnprocessableEntityError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  501: 'NotImplementedError',
  502: 'BadGatewayError',
  503: 'ServiceUnavailableError',
  504: 'GatewayTimeoutError',
};

/** The vLLM error type name for an HTTP status (`BadRequestError` for 400 ...). */
export function vllmErrorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequestError');
}

/** An error the simulator answers as an HTTP error response in vLLM's shape. */
export class SimHttpError extends Error {
  override readonly name = 'SimHttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = vllmErrorType(status),
    readonly param: string | null = null,
  ) {
    super(message);
  }

  /** The JSON body vLLM would send. */
  body(): ErrorResponseWire {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.status } };
  }
}

/** Shorthand for the common 400. */
export function badRequest(message: string, param: string | null = null): SimHttpError {
  return new SimHttpError(400, message, 'BadRequestError', param);
}
