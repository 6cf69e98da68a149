/**
 * The command launcher's Perl program (launcher.ts says what it is for and how it is spoken to).
 *
 * The launcher keeps one spare: a child forked ahead, already in its own session and off the launcher's pipes, that
 * waits on a pipe of its own for the command it will become. A request hands the spare its command (file, cwd, output
 * and state files, argv, environment) and closes that pipe; the spare opens the files, changes directory, puts the
 * descriptors in place, sets exactly the given environment and execs, reporting any failure on a close-on-exec error
 * pipe, whose end of file is the launcher's "it runs". Only then does the launcher fork the next spare — after
 * answering, while the command runs. A spare that finds its pipe closed with nothing in it (the launcher is gone)
 * exits.
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
sub start {
  my ($id, $job) = split /\0/, $_[0], 2;
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
while (1) {
  my $nl = index($in, "\n");
  if ($nl >= 0) {
    my $len = substr($in, 0, $nl);
    exit 0 unless $len =~ /^[0-9]+$/;
    if (length($in) >= $nl + 1 + $len) {
      my $req = substr($in, $nl + 1, $len);
      substr($in, 0, $nl + 1 + $len) = '';
      start($req);
      next;
    }
  }
  # The next request's fork, made while nothing is asked of the launcher (its command runs meanwhile).
  make_spare() unless defined $spare;
  my $rin = '';
  vec($rin, 0, 1) = 1;
  vec($rin, $_, 1) = 1 for keys %kids;
  my $n = select(my $rout = $rin, undef, undef, undef);
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
