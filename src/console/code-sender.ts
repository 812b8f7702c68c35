/**
 * How a login code reaches its person. Outside development the host passes a
 * sender of its own (mail, chat, SMS); the log sender exists for development
 * only, where the code is written to the server log next to the user id.
 */

export interface LoginCode {
  userId: string;
  code: string;
  expiresAt: Date;
}

export interface CodeSender {
  /** Delivers the code; a rejection is answered 503 and the code stays unused. */
  send(message: LoginCode): Promise<void>;
}

/** Writes the code to the log at info. Refuses to exist outside development. */
export class LogCodeSender implements CodeSender {
  constructor(
    private readonly log: { info(fields: object, message: string): void },
    nodeEnv: string,
  ) {
    if (nodeEnv !== "development") {
      throw new Error(
        `the log code sender writes login codes to the log; it runs only with ` +
          `NODE_ENV=development (NODE_ENV is ${JSON.stringify(nodeEnv)})`,
      );
    }
  }

  send({ userId, code, expiresAt }: LoginCode): Promise<void> {
    this.log.info({ userId, loginCode: code, expiresAt }, "console login code (development)");
    return Promise.resolve();
  }
}
