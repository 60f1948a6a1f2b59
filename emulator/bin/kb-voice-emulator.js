#!/usr/bin/env node
// The `kb-voice-emulator` command. A committed launcher (not a build output) so that npm links the
// command in a fresh clone before anything is built; the root's `prepare` script builds dist/.
import '../dist/bin.js';
