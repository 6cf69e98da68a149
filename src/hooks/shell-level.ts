/**
 * Bash started with a socket on stdin at shell level 1 takes itself for an ssh session and runs ~/.bashrc, even with
 * `-c`. Node's stdio pipes are socketpairs (libuv), so every `bash` that toolgate starts with a piped stdin (hooks, the
 * orphan watchdog) would run the user's ~/.bashrc — pyenv init, nvm, prompts: seconds each, or a hang on a lock that a
 * killed one left behind — wherever SHLVL is 0 or missing (a service, CI). From a terminal SHLVL is already 1 or more;
 * this makes it so everywhere, and the child's bash (level 2) reads no start-up file.
 */
export function withShellLevel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const level = Number(env.SHLVL);
  if (Number.isInteger(level) && level >= 1) return env;
  return { ...env, SHLVL: '1' };
}
