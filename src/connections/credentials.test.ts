import { credentialsView, needsRefresh, type OAuth2Credentials } from './credentials';

const withRefresh: OAuth2Credentials = {
  type: 'OAUTH2',
  access_token: 'at',
  refresh_token: 'rt',
  expires_at: '2030-01-01T00:00:00.000Z',
  raw: { access_token: 'at', refresh_token: 'rt', token_type: 'bearer', scope: 'read' },
};

describe('credentialsView', () => {
  it('hides the refresh token unless asked, in the object and in raw', () => {
    const view = credentialsView(withRefresh, false);
    expect(view).toEqual({
      type: 'OAUTH2',
      access_token: 'at',
      expires_at: '2030-01-01T00:00:00.000Z',
      raw: { access_token: 'at', token_type: 'bearer', scope: 'read' },
    });
    expect(credentialsView(withRefresh, true)).toMatchObject({
      refresh_token: 'rt',
      raw: { refresh_token: 'rt' },
    });
  });

  it('omits expires_at when there is no refresh token', () => {
    const { refresh_token: _dropped, ...withoutRefresh } = withRefresh;
    expect(credentialsView(withoutRefresh, true)).not.toHaveProperty('expires_at');
  });
});

describe('needsRefresh', () => {
  const now = Date.parse('2029-12-31T23:50:00.000Z');
  it('refreshes within the buffer and not before', () => {
    expect(needsRefresh(withRefresh, {}, now)).toBe(true);
    expect(needsRefresh(withRefresh, { token_expiry_buffer_seconds: 15 * 60 }, now)).toBe(true);
    expect(needsRefresh(withRefresh, { token_expiry_buffer_seconds: 5 * 60 }, now)).toBe(false);
  });
  it('never refreshes without a refresh token or expiry', () => {
    const { refresh_token: _dropped, ...withoutRefresh } = withRefresh;
    expect(needsRefresh(withoutRefresh, {}, Date.parse('2031-01-01'))).toBe(false);
  });
});
