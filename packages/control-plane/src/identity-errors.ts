/** A start-up or reload problem in the authorization configuration; the message is what the operator reads. */
export class AuthorizationConfigError extends Error {
  readonly code = 'ERR_AUTHORIZATION_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'AuthorizationConfigError';
  }
}

/** A start-up or reload problem in the authentication configuration, with the field errors as lines. */
export class AuthenticationConfigError extends Error {
  readonly code = 'ERR_AUTHENTICATION_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationConfigError';
  }
}

/** A configuration file named by a flag that cannot be read at start. */
export class IdentityFileError extends Error {
  readonly code = 'ERR_IDENTITY_FILE';

  constructor(message: string) {
    super(message);
    this.name = 'IdentityFileError';
  }
}
