/** What edge-ranker refuses, said in one line: the message names what is wrong and what to do. */
export class EdgeRankerError extends Error {
  constructor(message) {
    super(message);
    this.name = "EdgeRankerError";
  }
}

/** A reaction refused because no interest can be learnt from its text: an app shows it and goes on; nothing was stored. */
export class Unlearnable extends EdgeRankerError {
  constructor(message) {
    super(message);
    this.name = "Unlearnable";
  }
}
