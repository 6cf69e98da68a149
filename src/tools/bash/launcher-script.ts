/**
 * The command launcher's Perl program (launcher.ts says what it is for and how it is spoken to).
 *
 * The launcher keeps one process ahead of the next request, made while the current command runs:
 * - a warm shell, once a Bash command has run: bash itself, already exec'd and started (~2 ms of a command's 3 here)
 *   with the last command's program, directory and environment, in a session of its own, waiting on fd 4 for its
 *   script. It serves the next command when that command is the same program with `-c`, the same directory (path
 *   and inode) and the same environment but for `TOOLGATE_PGROUP`: it reads a few assignments from fd 4 (sourced, so
 *   read whole, not byte by byte as `read` takes a pipe), points stdout, stderr and fd 3 at the command's files,
 *   exports the command's marker (its own environment holds `<process>.<scope>.warm`: scans by process or scope
 *   find it, none for one command does), answers one byte on fd 5 ("it runs") and `eval`s the script — what
 *   `bash -c` would have run, with `SECONDS` from 0; errors name `eval` rather than `-c`. Not with `BASH_ENV` set.
 *   Any other command retires it (the spare path below); a warm shell gone before its byte came is `F` (Node spawns
 *   the command; nothing of it ran).
 * - otherwise a spare: a child forked ahead, already in its own session and off the launcher's pipes, that waits on a
 *   pipe of its own for the command it will become. A request hands the spare its command (file, cwd, output and
 *   state files, argv, environment) and closes that pipe; the spare opens the files, changes directory, puts the
 *   descriptors in place, sets exactly the given environment and execs, reporting any failure on a close-on-exec error
 *   pipe, whose end of file is the launcher's "it runs". A spare that finds its pipe closed with nothing in it (the
 *   launcher is gone) exits; so does a warm shell.
 */
export const LAUNCHER_SCRIPT = String.raw`
use strict; use warnings; no warnings 'exec'; use POSIX ();
# PIPE ignored in the launcher (a reader gone is an error to handle, not death); the spares put it back to default.
$SIG{CHLD} = 'DEFAULT'; $SIG{PIPE} = 'IGNORE';
binmode STDIN; binmode STDOUT;
# pidfd_open(2) (Linux 5.3; the same number on every architecture): a descriptor that turns readable when the child
# exits. No SIGCHLD handler: Perl defers handlers to its next op, and a signal landing just before a blocking read
# would leave an exit unreported until the next request. Without it the launcher does not start (Node's spawn).
my $PIDFD_OPEN = 434;
my $probe = syscall($PIDFD_OPEN, $$ + 0, 0);
exit 2 if $probe < 0;
POSIX::close($probe);
# Opened above fd 2, so close-on-exec (as every descriptor Perl opens there: $^F is 2; pidfds are too).
open(my $null, '<', '/dev/null') or exit 1;
my %kids;
# The spare: a child forked ahead of the next request, waiting for it on its own pipe: [pid, pidfd, job pipe, error pipe].
my $spare;
# The last shell command's program, directory, key (program, directory, marker scope, environment without the
# marker) and environment; and the warm shell made from it: [pid, pidfd, script pipe (fd 4), answer pipe (fd 5), key,
# dev, ino].
my ($template, $warm);
my $MARK = 'TOOLGATE_PGROUP=';
# What the warm shell runs: the assignments from fd 4, then the prologue, then the script, each by eval (BASH_SOURCE
# and a top-level return stay as under -c). End of file with no script: the launcher is gone.
my $BOOT = '. /dev/fd/4; exec 4<&-; [ "$' . '{__tg_s+x}" ] || exit 0; eval "$__tg_p"; eval "unset -v __tg_p __tg_s; $__tg_s"';
sub q1 { my $v = $_[0]; $v =~ s/'/'\\''/g; "'$v'" }
sub reply { my $l = $_[0]; while (1) { my $n = syswrite(STDOUT, $l); return if defined $n && $n == length $l; if (defined $n) { substr($l, 0, $n) = ''; next } next if $!{EINTR}; exit 0 } }
sub spare_main {
  my ($jr, $ew) = @_;
  $SIG{PIPE} = 'DEFAULT';
  my $fail = sub { syswrite $ew, "$_[0]: $!"; POSIX::_exit(127) };
  # Off the launcher's request and reply pipes at once: the reply pipe's end must close when the launcher's does.
  defined POSIX::dup2(fileno $null, 0) or $fail->('dup2');
  defined POSIX::dup2(fileno $null, 1) or $fail->('dup2');
  defined POSIX::setsid() or $fail->('setsid');
  # While it waits: the first write to each page the set-up below uses is a copy-on-write fault (the fork shares the
  # launcher's pages, ~0.1 ms of them); a dry run of that set-up takes them now, off the request's path.
  { my %e = %ENV; %ENV = (%e, map { ("W$_" => 'x' x 64) } 1 .. 64); %ENV = %e; my @w = split /\0/, join("\0", ('x' x 64) x 64), -1; }
  my $job = '';
  while (1) { my $r = sysread($jr, $job, 65536, length $job); last if defined $r && $r == 0; next if !defined $r && $!{EINTR}; POSIX::_exit(0) unless defined $r }
  # End of file with nothing: the launcher is gone or retired this spare.
  POSIX::_exit(0) if $job eq '';
  my ($file, $cwd, $out, $state, $argc, @rest) = split /\0/, $job, -1;
  my @args = splice(@rest, 0, $argc);
  my ($o, $s);
  sysopen($o, $out, POSIX::O_WRONLY()) or $fail->('open output');
  sysopen($s, $state, POSIX::O_WRONLY()) or $fail->('open state');
  chdir $cwd or $fail->('chdir');
  defined POSIX::dup2(fileno $o, 1) or $fail->('dup2');
  defined POSIX::dup2(fileno $o, 2) or $fail->('dup2');
  # dup2 onto itself would keep the state file's close-on-exec flag: clear it.
  if (fileno $s == 3) { defined fcntl($s, POSIX::F_SETFD(), 0) or $fail->('fcntl') }
  else { defined POSIX::dup2(fileno $s, 3) or $fail->('dup2') }
  %ENV = ();
  for my $e (@rest) { my ($k, $v) = split /=/, $e, 2; $ENV{$k} = $v; }
  exec { $file } $file, @args;
  $fail->('exec');
}
sub make_spare {
  my ($jr, $jw, $er, $ew);
  pipe($jr, $jw) or return;
  pipe($er, $ew) or return;
  my $c = fork();
  return unless defined $c;
  if ($c == 0) { close $jw; close $er; spare_main($jr, $ew) }
  close $jr; close $ew;
  my $pidfd = syscall($PIDFD_OPEN, $c + 0, 0);
  if ($pidfd < 0) { kill 'KILL', $c; waitpid($c, 0); return }
  $spare = [$c, $pidfd, $jw, $er];
}
sub make_warm {
  my ($file, $cwd, $key, $env) = @$template;
  my @st = stat($cwd);
  return unless @st;
  my ($jr, $jw, $ar, $aw);
  pipe($jr, $jw) or return;
  pipe($ar, $aw) or return;
  my $c = fork();
  return unless defined $c;
  if ($c == 0) {
    close $jw; close $ar;
    $SIG{PIPE} = 'DEFAULT';
    defined POSIX::dup2(fileno $null, 0) or POSIX::_exit(127);
    defined POSIX::dup2(fileno $null, 1) or POSIX::_exit(127);
    defined POSIX::setsid() or POSIX::_exit(127);
    chdir $cwd or POSIX::_exit(127);
    # Through descriptors above 9 first: either pipe may sit on 4 or 5 already. dup2 leaves the new ones inheritable.
    my $j = fcntl($jr, POSIX::F_DUPFD(), 10);
    my $a = fcntl($aw, POSIX::F_DUPFD(), 10);
    (defined $j && defined $a) or POSIX::_exit(127);
    defined POSIX::dup2($j, 4) or POSIX::_exit(127);
    defined POSIX::dup2($a, 5) or POSIX::_exit(127);
    POSIX::close($j); POSIX::close($a);
    %ENV = ();
    for my $e (@$env) { my ($k, $v) = split /=/, $e, 2; $ENV{$k} = $v; }
    exec { $file } $file, '-c', $BOOT;
    POSIX::_exit(127);
  }
  close $jr; close $aw;
  my $pidfd = syscall($PIDFD_OPEN, $c + 0, 0);
  if ($pidfd < 0) { kill 'KILL', $c; waitpid($c, 0); return }
  $warm = [$c, $pidfd, $jw, $ar, $key, $st[0], $st[1]];
}
sub retire { my ($c, $pidfd, $jw, $ar) = @{$_[0]}; close $jw; close $ar; kill 'KILL', $c; waitpid($c, 0); POSIX::close($pidfd); }
sub start {
  my ($id, $job) = split /\0/, $_[0], 2;
  my ($file, $cwd, $out, $state, $argc, @rest) = split /\0/, $job, -1;
  my @args = splice(@rest, 0, $argc);
  my @env = grep { index($_, $MARK) != 0 } @rest;
  my ($marker) = map { substr($_, length $MARK) } grep { index($_, $MARK) == 0 } @rest;
  # Not with BASH_ENV: bash runs it as it starts, and a warm shell would run it before it knows where output goes.
  my $shell = $argc == 2 && $args[0] eq '-c' && defined $marker && !grep { index($_, 'BASH_ENV=') == 0 } @env;
  # The marker names its command last (<process>.<scope>.<command>): the waiting shell carries <process>.<scope>.warm,
  # so that what looks for a process's or a scope's commands by prefix finds it, and no single command's marker does.
  my $scope = $shell ? substr($marker, 0, rindex($marker, '.') + 1) : '';
  my $key = join("\0", $file, $cwd, $scope, sort @env);
  $template = $shell ? [$file, $cwd, $key, [@env, $MARK . $scope . 'warm']] : undef;
  if (defined $warm) {
    my $w = $warm;
    undef $warm;
    my @st = $shell && $w->[4] eq $key ? stat($cwd) : ();
    if (@st && $st[0] == $w->[5] && $st[1] == $w->[6]) {
      my ($c, $pidfd, $jw, $ar) = @$w;
      my $prologue = 'exec 1>|' . q1($out) . ' 2>&1 3>|' . q1($state) . ' || exit 126; export ' . $MARK . q1($marker) . '; builtin printf x >&5; exec 5>&-; SECONDS=0';
      my $text = '__tg_p=' . q1($prologue) . '; __tg_s=' . q1($args[1]) . "\n";
      my $sent = 1;
      while (length $text) { my $n = syswrite($jw, $text); if (defined $n) { substr($text, 0, $n) = ''; next } next if $!{EINTR}; $sent = 0; last }
      close $jw;
      my $ack = '';
      while ($sent) { my $r = sysread($ar, $ack, 1); last if defined $r || !$!{EINTR} }
      close $ar;
      if ($ack eq 'x') { $kids{$pidfd} = [$c, $id]; return reply("R $id $c\n"); }
      kill 'KILL', $c; waitpid($c, 0); POSIX::close($pidfd);
      return reply("F $id the waiting shell ended before it took the command\n");
    }
    retire($w);
  }
  make_spare() unless defined $spare;
  return reply("F $id fork: $!\n") unless defined $spare;
  my ($c, $pidfd, $jw, $er) = @$spare;
  undef $spare;
  my $sent = 1;
  while (length $job) { my $n = syswrite($jw, $job); if (defined $n) { substr($job, 0, $n) = ''; next } next if $!{EINTR}; $sent = 0; last }
  close $jw;
  my $err = '';
  while (1) { my $r = sysread($er, $err, 4096, length $err); last if defined $r && $r == 0; last if !defined $r && !$!{EINTR}; }
  close $er;
  # Not sent (the spare was gone) or reported not started: nothing of the command ran.
  if (!$sent || $err ne '') {
    kill 'KILL', $c unless $sent;
    waitpid($c, 0);
    POSIX::close($pidfd);
    $err = 'the spare process ended' if $err eq '';
    $err =~ s/[\r\n]+/ /g;
    return reply("F $id $err\n");
  }
  $kids{$pidfd} = [$c, $id];
  reply("R $id $c\n");
}
reply("H $$\n");
my $in = '';
# Whether the next request's process is still to be made (after the start, or since a request took it).
my $ahead = 1;
while (1) {
  my $nl = index($in, "\n");
  if ($nl >= 0) {
    my $len = substr($in, 0, $nl);
    exit 0 unless $len =~ /^[0-9]+$/;
    if (length($in) >= $nl + 1 + $len) {
      my $req = substr($in, $nl + 1, $len);
      substr($in, 0, $nl + 1 + $len) = '';
      start($req);
      $ahead = 1;
      next;
    }
  }
  my $rin = '';
  vec($rin, 0, 1) = 1;
  vec($rin, $_, 1) = 1 for keys %kids;
  # The next request's process is made while nothing is asked of the launcher (its command runs meanwhile), but only
  # once what is there already is answered: a quick command has often ended by now, and its exit report waited behind
  # the fork (0.3 ms to milliseconds of this process, on the call's path).
  my $n = select(my $rout = $rin, undef, undef, $ahead ? 0 : undef);
  if ($n == 0 && $ahead) {
    $ahead = 0;
    if (defined $template) { make_warm() unless defined $warm } else { make_spare() unless defined $spare }
    next;
  }
  if ($n < 0) { next if $!{EINTR}; exit 0 }
  for my $fd (keys %kids) {
    next unless vec($rout, $fd, 1);
    my ($pid, $id) = @{delete $kids{$fd}};
    my $got;
    do { $got = waitpid($pid, 0) } while ($got == -1 && $!{EINTR});
    my $st = $?;
    POSIX::close($fd);
    reply($got != $pid ? "X $id u\n" : ($st & 127) ? "X $id s " . ($st & 127) . "\n" : "X $id c " . ($st >> 8) . "\n");
  }
  next unless vec($rout, 0, 1);
  my $r = sysread(STDIN, $in, 65536, length $in);
  if (!defined $r) { next if $!{EINTR}; exit 0 }
  exit 0 if $r == 0;
}
`;
