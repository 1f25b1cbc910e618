/* skilldeck launch helper: exec'd between the runner and a skill's program.
 *
 * Same protocol and behaviour as _helper.py (the portable fallback); see that
 * file's docstring. argv:
 *
 *   helper 3 MODE UID GID GRACE_MS CPU AS FSIZE NOFILE NPROC CORE STATUS_FD OWN -- PROGRAM ARGS...
 *
 * MODE "exec": apply limits, drop privileges, exec PROGRAM (used inside a PID
 * namespace, which already contains the process tree).
 * MODE "portable": like "exec" with POSIX calls only (no prctl, no /proc): the
 * runner kills the process group instead. Off Linux every mode behaves so.
 * Running as root with UID -1 keeps uid 0 but empties every capability set
 * (bounding, ambient, permitted, effective, inheritable) before exec.
 * MODE "supervise": become a child subreaper, fork PROGRAM with the limits and
 * the dropped privileges, wait; on SIGTERM/SIGINT/SIGHUP send SIGTERM to every
 * descendant, and after GRACE_MS freeze (SIGSTOP) and SIGKILL them all; when
 * PROGRAM exits, kill whatever it left behind. Exit with PROGRAM's status, and
 * when STATUS_FD is not -1 also write it there ("e CODE" or "s SIGNAL"), because a
 * PID namespace's init reports a signal death as 128+N, like a plain exit status.
 * OWN 1: NPROC counts only the run's own processes. Dropping from root to UID,
 * the program gets a user namespace of its own in which every id maps to itself
 * (the kernel counts RLIMIT_NPROC per user and namespace, so the run starts from
 * zero whatever else UID runs); where no namespace can be made, and for a caller
 * that is not root, NPROC is raised by UID's processes now (read from /proc).
 * Numbers are decimal; -1 leaves a value unchanged.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#define LINUX_LAYERS 1
#else
#define LINUX_LAYERS 0
#define prctl(...) (-1)
#endif

#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif

static void die(const char *what, const char *arg) {
    int err = errno;
    fprintf(stderr, "skilldeck-helper: %s%s%s: %s\n", what, arg ? " " : "", arg ? arg : "",
            strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

static long num(const char *s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end) {
        fprintf(stderr, "skilldeck-helper: bad number %s\n", s);
        _exit(125);
    }
    return v;
}

static void limit(int res, long v, long extra) {
    if (v < 0) return;
    struct rlimit rl = {(rlim_t)v, (rlim_t)(v + extra)};
    if (setrlimit(res, &rl) != 0) {
        rl.rlim_max = rl.rlim_cur;
        if (setrlimit(res, &rl) != 0) die("setrlimit", NULL);
    }
}

struct mapping;

struct opts {
    long uid, gid, cpu, as, fsize, nofile, nproc, core;
    int pdeath, status_fd, portable, own;
    struct mapping *map; /* the supervisor maps the program's new namespace; NULL: a child does */
};

/* Processes of uid now, as /proc lists them (the fallback of own_namespace). */
static long count_processes(uid_t uid) {
    long count = 0;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && st.st_uid == uid) count++;
    }
    closedir(d);
    return count;
}

#ifdef __linux__
/* The lines of /proc/self/{uid,gid}_map again, each range mapped to itself: what
 * this namespace knows, unchanged, in a new one. 0 when it cannot be read. */
static int identity_map(const char *file, char *out, size_t size) {
    FILE *f = fopen(file, "re");
    if (!f) return 0;
    unsigned long inside, outside, count;
    size_t used = 0;
    int lines = 0;
    while (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3) {
        int n = snprintf(out + used, size - used, "%lu %lu %lu\n", inside, inside, count);
        if (n < 0 || (size_t)n >= size - used) {
            lines = 0;
            break;
        }
        used += (size_t)n;
        lines++;
    }
    fclose(f);
    return lines > 0;
}

static int write_map(pid_t pid, const char *name, const char *map) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t len = strlen(map);
    int ok = write(fd, map, len) == (ssize_t)len;
    close(fd);
    return ok;
}

/* A move into a new user namespace: the identity maps and two pipes, "go" (the
 * moving process says 'u' once it is in its new namespace, 'n' when it could not
 * make one) and "done" (the mapper answers '1' once the maps are written). */
struct mapping {
    char uids[4096], gids[4096];
    int go[2], done[2];
};

static int prepare_mapping(struct mapping *m) {
    if (!identity_map("/proc/self/uid_map", m->uids, sizeof m->uids) ||
        !identity_map("/proc/self/gid_map", m->gids, sizeof m->gids))
        return 0;
    if (pipe2(m->go, O_CLOEXEC) != 0) return 0;
    if (pipe2(m->done, O_CLOEXEC) != 0) {
        close(m->go[0]);
        close(m->go[1]);
        return 0;
    }
    return 1;
}

/* The mapper's half (a process of the namespace above): wait for pid's word, write
 * its maps when it moved, answer. No answer to a process that said nothing (gone). */
static void map_ids(struct mapping *m, pid_t pid) {
    char what = 0, ok = '0';
    close(m->go[1]);
    close(m->done[0]);
    if (read(m->go[0], &what, 1) == 1) {
        if (what == 'u' && write_map(pid, "uid_map", m->uids) && write_map(pid, "gid_map", m->gids))
            ok = '1';
        if (write(m->done[1], &ok, 1) < 0) { /* the mover reads no answer: it stops */ }
    }
    close(m->go[0]);
    close(m->done[1]);
}

/* The moving half: a new user namespace (can: a mapper waits), then its answer. 1 when
 * done, 0 when no namespace was made (nothing changed); a namespace made but left
 * without ids ends the process (nothing may run there). */
static int enter_mapped(struct mapping *m, int can) {
    char what = 'n', ok = '0';
    close(m->go[0]);
    close(m->done[1]);
    if (!can) { /* no mapper: nobody to tell */
        close(m->go[1]);
        close(m->done[0]);
        return 0;
    }
    if (unshare(CLONE_NEWUSER) == 0) what = 'u';
    if (write(m->go[1], &what, 1) != 1) { /* the mapper then answers no */ }
    close(m->go[1]);
    if (read(m->done[0], &ok, 1) != 1) ok = '0';
    close(m->done[0]);
    if (what != 'u') return 0;
    if (ok != '1') {
        errno = EPERM;
        die("user namespace", NULL);
    }
    return 1;
}

/* Move this process (root, about to drop to another user) into a new user
 * namespace where every id maps to itself. Only a process of the namespace above
 * may write such a map: the supervisor does it for the program it forked (map, set
 * up before the fork), else a short-lived child of this process. */
static int own_namespace(struct mapping *map) {
    if (map) return enter_mapped(map, 1);
    struct mapping m;
    if (!prepare_mapping(&m)) return 0;
    pid_t self = getpid();
    pid_t mapper = fork();
    if (mapper == 0) {
        map_ids(&m, self);
        _exit(0);
    }
    int moved = enter_mapped(&m, mapper > 0);
    if (mapper > 0) waitpid(mapper, NULL, 0);
    return moved;
}

/* Whether the program gets a user namespace of its own (see OWN above). */
static int namespace_wanted(const struct opts *o, int linux_layers) {
    return o->nproc >= 0 && o->own && linux_layers && o->uid >= 0 && geteuid() == 0;
}
#endif

/* RLIMIT_NPROC for the program (see OWN above). */
static long process_cap(const struct opts *o, int linux_layers) {
    if (o->nproc < 0 || !o->own) return o->nproc;
#ifdef __linux__
    if (namespace_wanted(o, linux_layers) && own_namespace(o->map)) return o->nproc;
#endif
    (void)linux_layers;
    return o->nproc + count_processes(o->uid >= 0 ? (uid_t)o->uid : getuid());
}

/* Root staying root: no capability survives exec (bounding and ambient sets
 * emptied, then permitted/effective/inheritable cleared). */
static void drop_capabilities(void) {
#ifdef __linux__
    for (int cap = 0; cap < 64; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
    }
#ifdef PR_CAP_AMBIENT
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
#endif
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &head, data) != 0) die("capset", NULL);
#endif
}

/* Nothing skilldeck holds open (the sealed copy this helper runs from, the status
 * pipe) reaches the program. */
static void close_others(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (long fd = 3; fd < max; fd++) close((int)fd);
}

static void setup_and_exec(const struct opts *o, char **prog) {
    if (o->status_fd >= 0) close(o->status_fd);
    int linux_layers = LINUX_LAYERS && !o->portable;
    long nproc = process_cap(o, linux_layers); /* first: it may use the mapping's pipes */
    close_others();
    umask(077);
    limit(RLIMIT_CPU, o->cpu, 1);
    limit(RLIMIT_AS, o->as, 0);
    limit(RLIMIT_FSIZE, o->fsize, 0);
    limit(RLIMIT_NOFILE, o->nofile, 0);
    limit(RLIMIT_NPROC, nproc, 0);
    limit(RLIMIT_CORE, o->core, 0);
    if (o->uid >= 0) {
        if (linux_layers) {
            for (int cap = 0; cap < 64; cap++) {
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
            }
        }
        if (setgroups(0, NULL) != 0) die("setgroups", NULL);
        if (setgid((gid_t)o->gid) != 0) die("setgid", NULL);
        if (setuid((uid_t)o->uid) != 0) die("setuid", NULL);
        if (getuid() != (uid_t)o->uid || geteuid() != (uid_t)o->uid || getegid() != (gid_t)o->gid)
            die("privilege drop", NULL);
    } else if (geteuid() == 0 && linux_layers) {
        drop_capabilities();
    }
    if (linux_layers) {
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs", NULL);
        if (o->pdeath) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    }
    execv(prog[0], prog);
    die("cannot execute", prog[0]);
}

/* ------------------------------------------------------------ the process tree */

struct pidset {
    pid_t *v;
    size_t n, cap;
};

static int has(const struct pidset *s, pid_t p) {
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == p) return 1;
    return 0;
}

static void add(struct pidset *s, pid_t p) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        pid_t *nv = realloc(s->v, s->cap * sizeof(pid_t));
        if (!nv) return;
        s->v = nv;
    }
    s->v[s->n++] = p;
}

/* Every descendant of this process, from /proc/<pid>/stat parent links: the
 * fallback for kernels without child lists (it reads every process of the host). */
static void descendants_by_scan(struct pidset *out) {
    struct pidset pids = {0}, parents = {0};
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *e;
    char path[300], buf[512];
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        char *close = strrchr(buf, ')');
        if (!close) continue;
        char state;
        int ppid;
        if (sscanf(close + 1, " %c %d", &state, &ppid) != 2) continue;
        add(&pids, (pid_t)atoi(e->d_name));
        add(&parents, (pid_t)ppid);
    }
    closedir(d);
    pid_t self = getpid();
    size_t before;
    do {
        before = out->n;
        for (size_t i = 0; i < pids.n; i++) {
            if ((parents.v[i] == self || has(out, parents.v[i])) && !has(out, pids.v[i]))
                add(out, pids.v[i]);
        }
    } while (out->n != before);
    free(pids.v);
    free(parents.v);
}

/* Add the children of every thread of pid to out (those not in it yet). */
static void add_children(pid_t pid, struct pidset *out) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return; /* gone */
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char file[300];
        snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)pid, e->d_name);
        FILE *f = fopen(file, "re");
        if (!f) continue; /* the thread ended meanwhile */
        int child;
        while (fscanf(f, "%d", &child) == 1) {
            if (!has(out, (pid_t)child)) add(out, (pid_t)child);
        }
        fclose(f);
    }
    closedir(d);
}

/* Every descendant of this process: down through each process's own child list,
 * so it costs the size of the tree, not the host's process count. */
static void descendants(struct pidset *out) {
    out->n = 0;
    char self_children[64];
    snprintf(self_children, sizeof self_children, "/proc/%d/task/%d/children", (int)getpid(),
             (int)getpid());
    if (access(self_children, R_OK) != 0) {
        descendants_by_scan(out);
        return;
    }
    add_children(getpid(), out);
    for (size_t i = 0; i < out->n; i++) add_children(out->v[i], out);
}

static void signal_tree(int sig) {
    struct pidset all = {0};
    descendants(&all);
    for (size_t i = 0; i < all.n; i++) kill(all.v[i], sig);
    free(all.v);
}

/* 1 when this process has no children at all (then it has no descendants: orphans
 * are re-parented to the subreaper), 0 when it has some, -1 when unknown. */
static int childless(void) {
    char path[64], buf[16];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return len == 0;
}

/* Freeze every descendant (so none can fork), then kill them all. */
static void kill_tree(void) {
    if (childless() == 1) return;
    struct pidset stopped = {0}, now = {0};
    int quiet = 0;
    for (int round = 0; round < 1000; round++) {
        descendants(&now);
        int fresh = 0;
        for (size_t i = 0; i < now.n; i++) {
            if (!has(&stopped, now.v[i])) {
                kill(now.v[i], SIGSTOP);
                add(&stopped, now.v[i]);
                fresh++;
            }
        }
        /* a second empty pass: a process that died while the tree was read hands its
         * children to this subreaper after its own list was read */
        if (fresh) quiet = 0;
        else if (++quiet == 2) break;
    }
    for (size_t i = 0; i < stopped.n; i++) kill(stopped.v[i], SIGKILL);
    free(stopped.v);
    free(now.v);
}

static void noop(int sig) { (void)sig; }

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int main(int argc, char **argv) {
    if (argc < 16 || strcmp(argv[1], "3") != 0 || strcmp(argv[14], "--") != 0) {
        fprintf(stderr, "skilldeck-helper: bad arguments (protocol 3)\n");
        return 125;
    }
    int portable = strcmp(argv[2], "portable") == 0 || !LINUX_LAYERS;
    int supervise = strcmp(argv[2], "supervise") == 0 && !portable;
    struct opts o = {num(argv[3]),  num(argv[4]),  num(argv[6]),  num(argv[7]),
                     num(argv[8]),  num(argv[9]),  num(argv[10]), num(argv[11]),
                     supervise,     (int)num(argv[12]), portable, num(argv[13]) == 1, NULL};
    long grace = num(argv[5]);
    char **prog = argv + 15;
    if (!supervise) setup_and_exec(&o, prog);

    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    /* A namespace's init (bwrap --as-pid-1) only receives signals it handles. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = noop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
#ifdef __linux__
    /* the program's own user namespace is mapped by this process: no mapper process */
    struct mapping map;
    if (namespace_wanted(&o, 1) && prepare_mapping(&map)) o.map = &map;
#endif
    pid_t main_pid = fork();
    if (main_pid < 0) die("fork", NULL);
    if (main_pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        setup_and_exec(&o, prog);
    }
#ifdef __linux__
    if (o.map) {
        signal(SIGPIPE, SIG_IGN); /* an answer to a program killed meanwhile ends nothing */
        map_ids(o.map, main_pid);
    }
#endif
    int status = 0, done = 0, terminating = 0;
    long deadline = 0;
    for (;;) {
        int st;
        pid_t r;
        while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
            if (r == main_pid) {
                status = st;
                done = 1;
            }
        }
        if (done || (r < 0 && errno == ECHILD)) break;
        if (terminating && now_ms() >= deadline) break;
        long wait_ms = terminating ? deadline - now_ms() : 1000;
        if (wait_ms < 1) wait_ms = 1;
        struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
        int sig = sigtimedwait(&set, NULL, &ts);
        if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) && !terminating) {
            terminating = 1;
            deadline = now_ms() + (grace > 0 ? grace : 0);
            signal_tree(SIGTERM);
        }
    }
    kill_tree();
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, 0);
        if (r == main_pid && !done) {
            status = st;
            done = 1;
        }
        if (r < 0 && errno != EINTR) break;
    }
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore);
    if (o.status_fd >= 0) {
        char line[32];
        int len = WIFSIGNALED(status)
                      ? snprintf(line, sizeof line, "s %d\n", WTERMSIG(status))
                      : snprintf(line, sizeof line, "e %d\n",
                                 WIFEXITED(status) ? WEXITSTATUS(status) : 1);
        if (write(o.status_fd, line, (size_t)len) < 0) { /* the runner falls back */ }
        close(o.status_fd);
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        kill(getpid(), sig);
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
