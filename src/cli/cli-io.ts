import { createInterface } from 'node:readline/promises';

/** Where commands write and how they ask; a test passes its own. */
export interface CliIo {
  /** Results (stdout). */
  out(text: string): void;
  /** Progress, notes and errors (stderr). */
  err(text: string): void;
  /** Whether a person can answer a question (stdin and stderr are terminals). */
  readonly interactive: boolean;
  /** Asks a yes/no question; anything but y or yes is no. */
  confirm(question: string): Promise<boolean>;
}

export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    async confirm(question) {
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const answer = await prompt.question(question);
        return /^y(es)?$/i.test(answer.trim());
      } finally {
        prompt.close();
      }
    },
  };
}
