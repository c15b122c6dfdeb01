/* SPDX-License-Identifier: Apache-2.0 */
/* The rules' descriptions (rules.h), in the order of docs/certificate.md section 5 and
 * docs/policy.md's tables. */
#include "rules.h"

#include <stdio.h>
#include <string.h>

#define P "See docs/policy.md, \"Rules and findings\"."
#define C "See docs/certificate.md, section 5."
#define CIS "See docs/policy.md, \"CIS Docker Benchmark 1.6\"."
#define A "See docs/audit.md."

static const rule_doc rules[] = {
    /* the verifier's own steps */
    {"certificate.too_large", "5.0", "Certificate within the size cap",
     "The envelope is at most the size cap (1 MiB unless --max-size).",
     "Present the certificate collect wrote, not a larger file. " C},
    {"certificate.format", "8.0", "Certificate well-formed",
     "The envelope and the signed statement parse strictly, in JCS form, against the closed "
     "schema of the statement and predicate.",
     "The certificate was damaged or not written by boxcert collect: collect it again. " C},
    {"certificate.type", "8.0", "Certificate of the boxcert types",
     "payloadType, _type and predicateType are boxcert's.",
     "Present a boxcert certificate (an in-toto statement of predicate type boxcert). " C},
    {"signature.threshold", "9.0", "Signed by enough trusted keys",
     "The number of distinct trusted keys whose signature verifies reaches the threshold.",
     "Sign with a key the policy trusts (trust.keys or --key), or check the gate's keys. " C},
    {"certificate.subject", "8.0", "Image subject is the observed image",
     "The statement's image subject equals predicate.image.id.",
     "The statement was altered after collection: collect it again. " C},
    {"certificate.inputs", "8.0", "Inputs digest recomputed",
     "inputsSha256 equals the SHA-256 of the JCS of {containment, image, requested, session}.",
     "The statement was altered after collection: collect it again. " C},
    {"signature.key_validity", "8.0", "Signing keys valid when signed",
     "Keys revoked or outside their notBefore/notAfter at issuedAt are dropped and the "
     "threshold checked again.",
     "Sign with a key that is valid and not revoked. " C},
    {"certificate.expired", "7.0", "Certificate not expired",
     "The verification time is before expiresAt (plus the policy's clock skew).",
     "Verify soon after collection, or collect with a longer --ttl. " C},
    {"certificate.not_yet_valid", "7.0", "Certificate not issued in the future",
     "issuedAt is not after the verification time (plus the clock skew).",
     "Check the collector's and the gate's clocks. " C},
    {"certificate.replay", "8.0", "Certificate not presented before",
     "With --seen, neither the certificate nor its boot id and nonce were recorded before "
     "(a re-run of the same --seen-run passes).",
     "Collect a new certificate for each session; give the gate's run with --seen-run. " C},
    {"certificate.nonce", "8.0", "Certificate carries the gate's challenge",
     "With --nonce, predicate.nonce is the challenge the gate handed to collect.",
     "Collect with --nonce and the gate's challenge. " C},
    {"certificate.binding", "8.0", "Certificate of the admitted session",
     "The image, container, labels and source commit match the gate's --expect-* bindings.",
     "Present the certificate of the session being admitted. " C},
    {"certificate.missing", "8.0", "Every expected session certified",
     "Each session listed in --expect has a passing certificate for its start.",
     "Collect a certificate for every session the launcher started. See docs/ci.md."},
    /* the policy's rules */
    {"certificate.age", "5.0", "Certificate recent enough",
     "now - issuedAt is at most certificate.maxAge (plus the clock skew).",
     "Collect closer to the verification, or raise certificate.maxAge. " P},
    {"certificate.collection_delay", "5.0", "Collected soon after the session started",
     "issuedAt - session.startedAt is at most certificate.maxCollectionDelay.",
     "Collect right after the session starts. " P},
    {"collector.version", "4.0", "Collector recent enough",
     "predicate.collector.version is at least collector.minVersion.",
     "Upgrade boxcert on the collecting host. " P},
    {"image.allowed", "7.0", "Image pinned by the policy", "image.id is one of images.pins.",
     "Run a pinned image, or pin this one in images.pins. " P},
    {"image.collector_pin", "6.0", "Image pinned at collection",
     "image.pin equals image.id (collect --expect-image), and is one of the pins.",
     "Collect with --expect-image sha256:<the image's id>. " P},
    {"source.required", "5.0", "Source commit recorded and clean",
     "A source subject with a gitCommit digest, and source.dirty false.",
     "Collect with --source-repo and --source-rev from a clean checkout. " P},
    {"containment.network", "7.0", "Network mode allowed",
     "network.mode is one of containment.network's modes or names.",
     "Run the session on an allowed network (--network none). " P},
    {"containment.network_kernel", "6.0", "Network read from the kernel",
     "network.links was read over netlink in the session's network namespace.",
     "Collect at level engine+kernel or engine+runtime. " P},
    {"containment.ports", "5.0", "No published ports", "network.ports is empty.",
     "Run the session without -p/--publish. " P},
    {"containment.rootfs", "5.0", "Read-only root filesystem", "rootfs.readOnly is true.",
     "Run the session with --read-only and tmpfs for the places it writes. " P},
    {"containment.capabilities", "8.0", "Capabilities within the allowed set",
     "The effective, permitted and ambient sets (and bounding without no-new-privileges) hold "
     "only capabilities containment.capabilities.allow lists.",
     "Run the session with --cap-drop ALL and add only what it needs. " P},
    {"containment.no_new_privileges", "6.0", "no-new-privileges on", "noNewPrivileges is true.",
     "Run the session with --security-opt no-new-privileges. " P},
    {"containment.seccomp", "7.0", "Seccomp filter applied",
     "A seccomp filter is on: the engine's default, or a profile pinned by its SHA-256.",
     "Do not run with seccomp=unconfined. " P},
    {"containment.seccomp_deny", "8.0", "Seccomp denies the listed syscalls, by the kernel",
     "Every seccomp chain the kernel enforces on the session's tasks (read with ptrace) denies "
     "each syscall of containment.seccomp.deny for every argument on every ABI, whatever the "
     "profile is called; a task whose programs could not be read fails.",
     "Run with the engine's default seccomp profile or a stricter one. " P},
    {"containment.seccomp_programs", "7.0", "Seccomp programs pinned",
     "Every seccomp chain the kernel enforces on the session's tasks is one of "
     "containment.seccomp.programs (by its SHA-256).",
     "Run with the profile whose chain the policy pins. " P},
    {"containment.apparmor", "6.0", "AppArmor profile applied",
     "An AppArmor profile other than unconfined (n/a on a host without AppArmor).",
     "Do not run with apparmor=unconfined. " P},
    {"containment.selinux", "6.0", "SELinux label confines",
     "An SELinux label whose type confines (n/a on a host without SELinux).",
     "Do not run with label=disable or an unconfined type. " P},
    {"containment.privileged", "9.5", "Not privileged", "privileged is false.",
     "Never run the session with --privileged. " P},
    {"containment.runtime", "6.0", "Runtime allowed", "runtime.name is one of containment.runtimes.",
     "Run the session with an allowed runtime (--runtime runsc). " P},
    {"containment.user", "7.0", "Runs as a non-root user",
     "No uid or gid 0 in any task (nonRoot), and every uid among containment.user.uids.",
     "Run the session with --user and a non-root uid. " P},
    {"containment.namespaces", "8.0", "Host namespaces only where allowed",
     "Every namespace that is the host's is listed in containment.namespaces.host.",
     "Do not run with --pid, --ipc, --uts or --network host. " P},
    {"containment.namespace_sharing", "7.0", "Namespaces not shared",
     "No process outside the session is in, or holds open, the namespaces listed in notShared.",
     "Do not join another container's namespaces (container:<id>). " P},
    {"containment.userns", "6.0", "User namespace remapped",
     "The user namespace is not the host's.", "Run the engine with userns-remap. " P},
    {"containment.resources.memory", "4.0", "Memory limited",
     "memoryBytes is set and at most containment.resources.memoryMax.",
     "Run the session with --memory. " P},
    {"containment.resources.pids", "4.0", "PIDs limited",
     "pidsLimit is set and at most containment.resources.pidsMax.",
     "Run the session with --pids-limit. " P},
    {"containment.resources.cpus", "3.0", "CPU limited",
     "The CPU limit is at most containment.resources.cpusMax.",
     "Run the session with --cpus. " P},
    {"containment.write_surface", "5.0", "Writable places allowed",
     "Every writeSurface entry matches a containment.writable entry (path, kind, maxSize).",
     "Mount only the writable places the policy lists, with their sizes. " P},
    {"containment.mounts", "8.5", "No forbidden host path mounted",
     "No mount's host source equals, lies under or holds a containment.forbiddenMounts path.",
     "Do not mount the engine socket or the host's system folders. " P},
    {"containment.propagation", "6.0", "No shared mount propagation",
     "No mount with shared or rshared propagation.",
     "Mount with private propagation (the default). " P},
    {"containment.devices", "8.0", "No host devices",
     "No devices, no allow-all device rule, no rule or node beyond the standard "
     "pseudo-devices.",
     "Run the session without --device and --device-cgroup-rule. " P},
    {"containment.cgroup_parent", "3.0", "Engine's default cgroup parent",
     "resources.cgroupParent is the engine's default.", "Run without --cgroup-parent. " P},
    {"containment.restart", "2.0", "Restarts bounded",
     "The restart policy allows at most containment.restartMaxRetries restarts.",
     "Run with --restart no or on-failure:N. " P},
    {"containment.sysctls", "6.0", "Sysctls allowed and pinned",
     "Every sysctl set is allowed, and each pinned one holds its value in the kernel.",
     "Set only allowed sysctls (--sysctl). " P},
    {"containment.processes", "7.0", "Processes settled",
     "The session's processes were read the same on two scans.",
     "Collect once the session's processes have started. " P},
    {"containment.system_paths", "7.0", "System paths read-only and masked",
     "/proc/sys and the like are read-only, and the masked paths masked, in mountinfo.",
     "Do not run with --security-opt systempaths=unconfined. " P},
    {"containment.descriptors", "8.0", "No descriptors reaching outside",
     "No open descriptor of the session reaches an engine socket, a host device, file, "
     "folder or namespace beyond containment.descriptors.allow.",
     "Do not pass descriptors of the host into the session. " P},
    {"containment.channels", "8.0", "No socket channel out of the session",
     "No socket of the session's processes is a unix socket connected to a process of the host "
     "or of another container (but to a peer bound to a path in containment.channels.allow), "
     "none was made in another network namespace, none holds descriptors in flight.",
     "Do not pass sockets into the session, nor connect it to a host or another container's "
     "socket. " P},
    {"containment.propagation_peers", "8.0", "No mount receives propagation from the host",
     "No mount of the session is shared with, or a slave of, a peer group that has a mount point "
     "of this host outside the session (a volume's folder, the engine's data root, a host path), "
     "as its mountinfo shows it (unless containment.propagationFromHost is true).",
     "Mount volumes and binds with private propagation (the default), not rslave, rshared, "
     "slave or shared. " P},
    {"containment.references", "8.0", "Nothing held beyond descriptors reaching outside",
     "No working directory, root, executable, file mapping or file registered with io_uring of "
     "the session's processes is on a mount their namespace does not have (but kinds in "
     "containment.references.allow).",
     "Do not start the session's processes in, or map, host files or folders passed to it. " P},
    {"containment.user_namespaces", "7.0", "No user namespace can be created",
     "With userNamespaces: false, no ABI's seccomp chain lets clone or unshare through with "
     "CLONE_NEWUSER nor lets clone3 through, or user.max_user_namespaces is 0 as the session "
     "sees it.",
     "Keep Docker's default seccomp profile and do not add CAP_SYS_ADMIN, or set "
     "user.max_user_namespaces to 0. " P},
    {"containment.host_objects", "9.0", "No host object reachable through a mount",
     "No mount of the session reaches the engine's or a runtime's socket or state folder, this "
     "host's procfs, sysfs or root, or the signing key (by device and inode, whatever path the "
     "engine gave); no devtmpfs, writable cgroup v1, debugfs, tracefs, securityfs, bpf, nsfs, "
     "efivarfs or configfs mount; no FUSE or remote mount left uninspected.",
     "Mount only the session's own folders; never a folder holding an engine socket, a hard "
     "link to one, or a volume bound to one. " P},
    {"evidence.level", "5.0", "Evidence level accepted",
     "evidence.level is one of evidence.accept.",
     "Collect where the kernel or the runtime can be read (not over TCP alone). " P},
    {"evidence.discrepancies", "6.0", "Sources agree",
     "No discrepancy between the engine, the OCI spec, the runtime and the kernel.",
     "Find why the engine's word and the kernel's reading differ. " P},
    {"requested.match", "6.0", "As strong as requested",
     "A requested spec was recorded and every requested field is at least as strong in effect.",
     "Collect with --requested, and run the session as requested. " P},
    /* CIS Docker Benchmark 1.6 */
    {"cis.4.1", "7.0", "CIS 4.1: a non-root user", "The session's user is not root.",
     "Run with --user and a non-root uid. " CIS},
    {"cis.5.2", "6.0", "CIS 5.2: AppArmor profile", "An AppArmor profile other than unconfined.",
     "Do not run with apparmor=unconfined. " CIS},
    {"cis.5.3", "6.0", "CIS 5.3: SELinux options", "An SELinux label whose type confines.",
     "Do not run with label=disable. " CIS},
    {"cis.5.4", "8.0", "CIS 5.4: capabilities restricted",
     "Not privileged, no capability beyond Docker's 14 defaults.",
     "Run with --cap-drop ALL. " CIS},
    {"cis.5.5", "9.5", "CIS 5.5: not privileged", "The session is not privileged.",
     "Never run with --privileged. " CIS},
    {"cis.5.6", "8.0", "CIS 5.6: no sensitive host folder mounted read-write",
     "No read-write mount of / or under /boot /dev /etc /lib /proc /sys /usr.",
     "Mount host folders read-only, or not at all. " CIS},
    {"cis.5.8", "5.0", "CIS 5.8: no privileged host port", "No published host port 1..1023.",
     "Publish on ports above 1023. " CIS},
    {"cis.5.10", "7.0", "CIS 5.10: host network not shared",
     "network.mode is not host, the net namespace not the host's.",
     "Do not run with --network host. " CIS},
    {"cis.5.11", "4.0", "CIS 5.11: memory limited", "A memory limit is set.",
     "Run with --memory. " CIS},
    {"cis.5.12", "3.0", "CIS 5.12: CPU priority set", "CPU shares or a CPU limit are set.",
     "Run with --cpus or --cpu-shares. " CIS},
    {"cis.5.13", "5.0", "CIS 5.13: read-only rootfs", "The root filesystem is read-only.",
     "Run with --read-only. " CIS},
    {"cis.5.14", "4.0", "CIS 5.14: ports bound to an interface",
     "No port bound to all interfaces.", "Publish on a host address (-p 127.0.0.1:8080:80). " CIS},
    {"cis.5.15", "2.0", "CIS 5.15: on-failure restart at most 5",
     "The restart policy is no, or on-failure with at most 5.",
     "Run with --restart on-failure:5. " CIS},
    {"cis.5.16", "7.0", "CIS 5.16: host PID namespace not shared",
     "The pid namespace is not the host's.", "Do not run with --pid host. " CIS},
    {"cis.5.17", "7.0", "CIS 5.17: host IPC namespace not shared",
     "The ipc namespace is not the host's.", "Do not run with --ipc host. " CIS},
    {"cis.5.18", "8.0", "CIS 5.18: host devices not exposed",
     "No devices, allow-all rule or rule beyond the standard pseudo-devices.",
     "Run without --device. " CIS},
    {"cis.5.20", "6.0", "CIS 5.20: mount propagation not shared",
     "No mount with shared or rshared propagation.", "Mount with private propagation. " CIS},
    {"cis.5.21", "6.0", "CIS 5.21: host UTS namespace not shared",
     "The uts namespace is not the host's.", "Do not run with --uts host. " CIS},
    {"cis.5.22", "7.0", "CIS 5.22: seccomp not disabled",
     "Not privileged, seccomp not disabled.", "Do not run with seccomp=unconfined. " CIS},
    {"cis.5.25", "3.0", "CIS 5.25: cgroup confirmed", "The engine's default cgroup parent.",
     "Run without --cgroup-parent. " CIS},
    {"cis.5.26", "6.0", "CIS 5.26: no new privileges", "no-new-privileges is on.",
     "Run with --security-opt no-new-privileges. " CIS},
    {"cis.5.29", "4.0", "CIS 5.29: PIDs limit", "A PIDs limit is set.",
     "Run with --pids-limit. " CIS},
    {"cis.5.30", "5.0", "CIS 5.30: default bridge not used",
     "The session is not on the default bridge.", "Run on a user-defined network. " CIS},
    {"cis.5.31", "6.0", "CIS 5.31: host user namespace not shared",
     "The engine's user namespace setting is not host.", "Do not run with --userns host. " CIS},
    {"cis.5.32", "9.0", "CIS 5.32: engine socket not mounted",
     "No mount is, or holds, an engine socket.", "Never mount docker.sock into a session. " CIS},
    /* the audit's */
    {"audit.attested", "8.0", "Session attested",
     "The session's start has a verified certificate in --certs.",
     "Collect a certificate for every session the run starts. " A},
    {"audit.expected", "8.0", "Expected session found",
     "A session listed in --expect was seen on an engine or is certified.",
     "Find the session the launcher says it started. " A},
    {"audit.engine", "7.0", "Engine reachable",
     "Every engine of the audit answered: an unreachable engine leaves its sessions unknown.",
     "Check the engine's endpoint and credentials, then audit again. " A},
    {"audit.leftover", "5.0", "Session removed after the run",
     "The session is no longer on its engine after the run.",
     "Remove the run's sessions when it ends (docker rm). " A},
    {"audit.collect", "6.0", "Collection of the session",
     "audit --collect could collect a certificate for the session.",
     "See the refusal's reason: the session is weaker than the policy. " A},
    {"audit.duplicate", "5.0", "One certificate per session start",
     "Only one certificate names the session's start.", "Collect once per session start. " A},
    {"audit.orphan", "5.0", "Session of a known owner",
     "The session belongs to an expected owner.", "Find who started the session. " A},
    {"audit.rejected", "6.0", "Certificate of no session: rejected",
     "A certificate in --certs that names no audited session failed to verify.",
     "See the certificate's failed findings. " A},
    {"audit.unmatched", "2.0", "Certificate of no session",
     "A verified certificate in --certs names no audited session.",
     "Check that the audit covers the certificate's engine. " A},
};

static const rule_doc unknown_rule = {
    NULL, "5.0", "A boxcert rule", "A rule this version of boxcert has no description for.",
    "See docs/policy.md, \"Rules and findings\"."};

int rule_doc_known(const char *id)
{
    for (size_t i = 0; id && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0)
            return 1;
    return 0;
}

const rule_doc *rule_doc_of(const char *id)
{
    for (size_t i = 0; id && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0)
            return &rules[i];
    return &unknown_rule;
}

const rule_doc *rule_doc_at(unsigned i)
{
    return i < sizeof rules / sizeof rules[0] ? &rules[i] : NULL;
}
