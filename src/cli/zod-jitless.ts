/**
 * Zod without its JIT in the CLI's processes. Zod compiles a parser for each object schema with `new Function` at its
 * first parse (and probes for `eval` first): code that no code cache holds, compiled again by every command, for
 * parsers a short process runs a few times (~5 ms of an `mcp serve` start: the JSON-RPC schemas of its first
 * messages). Validation is the same without it. Zod reads the setting as each schema is made, so this module is the
 * CLI's first import. A program that embeds toolgate keeps its own setting.
 */
import * as z from 'zod';

z.config({ jitless: true });
