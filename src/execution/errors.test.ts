import { describe, expect, it } from 'vitest';
import { classifyToolError, errorMessageForModel, TelemetrySafeError } from './errors.js';

describe('classifyToolError', () => {
  it('prefers errno codes and stable names, never the message', () => {
    const enoent = Object.assign(new Error('ENOENT: no such file, open /home/alice/secret.txt'), { code: 'ENOENT' });
    expect(classifyToolError(enoent)).toBe('Error:ENOENT');
    expect(classifyToolError(new TypeError('x is not a function'))).toBe('TypeError');
    class ShellError extends Error {
      override name = 'ShellError';
    }
    expect(classifyToolError(new ShellError('rm: /home/alice: Permission denied'))).toBe('ShellError');
    expect(classifyToolError(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe('Error:ERR_INVALID_ARG_TYPE');
  });

  it('reports mangled names as Error, and non-errors by type', () => {
    const mangled = new Error('boom');
    mangled.name = 'e';
    expect(classifyToolError(mangled)).toBe('Error');
    expect(classifyToolError('a string with /paths')).toBe('non_error:string');
    expect(classifyToolError(null)).toBe('non_error:null');
    expect(classifyToolError({ weird: true })).toBe('non_error:object');
    expect(classifyToolError(Object.assign(new Error('x'), { code: 'lower case/with path' }))).toBe('Error');
  });

  it('uses a TelemetrySafeError’s own safe text', () => {
    expect(classifyToolError(new TelemetrySafeError('full /path message', 'ENOSPC'))).toBe('TelemetrySafeError:ENOSPC');
  });

  it('never throws, even on hostile objects', () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('trap'); } });
    expect(classifyToolError(hostile)).toBe('Error');
    expect(errorMessageForModel(new RangeError('bad'))).toBe('RangeError: bad');
    expect(errorMessageForModel(new Error(''))).toBe('(no message)');
  });
});
