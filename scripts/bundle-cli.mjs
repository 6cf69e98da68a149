// Bundles the CLI into dist/cli-bundle/ (run by `npm run build` after tsc). Loading one file instead of several
// hundred ES modules is most of the CLI's start-up time (zod alone is hundreds of files); code behind dynamic imports
// (each command, the agent loop, the SDK) goes into chunks that load only when a command needs them. Packages that
// find native or wasm files next to themselves stay external and are resolved from node_modules as usual.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: without a clean folder, every rebuild would leave the old chunks beside the new.
rmSync('dist/cli-bundle', { recursive: true, force: true });

await build({
  entryPoints: { toolgate: 'src/cli/main.ts' },
  outdir: 'dist/cli-bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [
    'web-tree-sitter',
    'tree-sitter-bash',
    'sharp',
    '@lydell/node-pty',
    '@vscode/ripgrep',
    'unpdf',
    '@anthropic-ai/sandbox-runtime',
    '@restatedev/*',
    'ink',
    'react',
    'react/*',
    'yoga-layout',
    'tsx',
    'tsx/*',
  ],
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);" },
  outExtension: { '.js': '.mjs' },
  minify: true,
  logLevel: 'warning',
});
