import { X_WEB_MESSAGES } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { pinRefusalErrors, readPinForm } from './x-web-pin-form';

const ID = 'G3KGOASz96M_Qu0CwSx1ZA';

describe('readPinForm', () => {
  it.each([
    [
      'a query id alone (the switches in use are kept)',
      { query_id: ` ${ID} `, features: '', field_toggles: '  ' },
      { ok: true, request: { query_id: ID } },
    ],
    [
      'a query id with both switches',
      {
        query_id: ID,
        features: '{"rweb_video_screen_enabled": false}',
        field_toggles: '{"withArticlePlainText":true}',
      },
      {
        ok: true,
        request: {
          query_id: ID,
          features: { rweb_video_screen_enabled: false },
          field_toggles: { withArticlePlainText: true },
        },
      },
    ],
    [
      'a query id that is too short',
      { query_id: 'abc', features: '', field_toggles: '' },
      { ok: false, errors: { query_id: X_WEB_MESSAGES.queryIdInvalid } },
    ],
    [
      'switches that are not JSON, or not names to true or false',
      { query_id: ID, features: '{rweb: true', field_toggles: '{"with space": "yes"}' },
      {
        ok: false,
        errors: {
          features: X_WEB_MESSAGES.switchesInvalid,
          field_toggles: X_WEB_MESSAGES.switchesInvalid,
        },
      },
    ],
    [
      'a JSON list instead of an object, and an empty query id',
      { query_id: '', features: '["a"]', field_toggles: '' },
      {
        ok: false,
        errors: {
          query_id: X_WEB_MESSAGES.queryIdInvalid,
          features: X_WEB_MESSAGES.switchesInvalid,
        },
      },
    ],
  ])('%s', (_name, values, expected) => {
    expect(readPinForm(values)).toEqual(expected);
  });
});

describe('pinRefusalErrors', () => {
  const refusal = (message: string, status = 400) =>
    new ApiError(status, message, 'VALIDATION_ERROR', undefined, message);

  it("puts the server's 400 under the field it is about", () => {
    expect(pinRefusalErrors(refusal(X_WEB_MESSAGES.queryIdInvalid), { query_id: ID })).toEqual({
      query_id: X_WEB_MESSAGES.queryIdInvalid,
    });
    expect(
      pinRefusalErrors(refusal(X_WEB_MESSAGES.switchesInvalid), {
        query_id: ID,
        field_toggles: { a: true },
      }),
    ).toEqual({ field_toggles: X_WEB_MESSAGES.switchesInvalid });
  });

  it('leaves any other failure to the dialog', () => {
    expect(
      pinRefusalErrors(refusal(X_WEB_MESSAGES.operationNotFound, 404), { query_id: ID }),
    ).toBeNull();
    expect(pinRefusalErrors(refusal('Invalid request'), { query_id: ID })).toBeNull();
    expect(pinRefusalErrors(new Error('offline'), { query_id: ID })).toBeNull();
  });
});
