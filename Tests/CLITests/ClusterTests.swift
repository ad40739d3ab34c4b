import Foundation
import Glibc
import XCTest

/// The shards of one --sheets job run by real schedulers: a one-node Slurm
/// cluster started for the test (its own munged, slurmctld and slurmd, all
/// children of the test, configured in the test's folder), and GNU parallel.
/// Together the tasks write what one run writes, byte for byte.
final class ClusterTests: CLITestCase {
    private var daemons: [(name: String, process: RunningProcess)] = []
    private let job = ["--sheets", "--max", "3", "--size", "120x80", "--jobs", "1"]

    override func tearDownWithError() throws {
        // Whatever happened, the daemons go, by their own pids.
        for (_, process) in daemons.reversed() {
            process.send(SIGTERM)
            let ended = process.wait(timeout: 20)
            if ended.timedOut { process.send(SIGKILL) }
        }
        daemons = []
        try super.tearDownWithError()
    }

    private func start(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        daemons.append((name, try RunningProcess(arguments: arguments.map(b), directory: dir, environment: environment)))
    }

    private func unshardedReference() throws -> [String: [UInt8]] {
        makeShardPhotos("in", count: 26, folders: 2)
        makeFolder("ref")
        makeFolder("out")
        let result = try collage(job + ["in", "-o", "ref/s-{n}.png"])
        XCTAssertEqual(result.status, 0, result.summary)
        return outputs("ref")
    }

    /// A TCP port on 127.0.0.1 that no one listens on now.
    private func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw SpawnError.system("bind", errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func testSlurmArrayJobWritesWhatOneRunWrites() throws {
        let expected = try unshardedReference()
        guard let environment = try startSlurm() else { return }
        let command = ([Package.binary] + job + ["in", "-o", "out/s-{n}.png", "--shard", "auto"])
            .map { "'" + $0 + "'" }.joined(separator: " ")
        write(b("#!/bin/sh\nexec \(command)\n"), to: "task.sh")
        chmod(path("task.sh"), 0o755)
        let submitted = try runProcess([b("sbatch"), b("--wait"), b("--array=0-3"), b("-D"), b(dir),
                                        b("-o"), b(path("task-%a.log")), b(path("task.sh"))],
                                       environment: environment, timeout: 300)
        let logs = (0..<4).map { String(decoding: contents("task-\($0).log") ?? [], as: UTF8.self) }
        XCTAssertEqual(submitted.status, 0, "\(submitted.summary)\n\(logs.joined(separator: "\n"))")
        XCTAssertEqual(outputs("out"), expected, "the four tasks wrote what one run writes")
        XCTAssertEqual(listingText("out").filter { $0.hasPrefix(".") }, [], "no lock or state left")
    }

    /// The plan as one job, then the array with `--dependency=afterok` on
    /// it: the tasks read the plan, not the headers, and write what one run writes.
    func testSlurmPlanThenArrayAfterIt() throws {
        let expected = try unshardedReference()
        guard let environment = try startSlurm() else { return }
        let quoted = { (words: [String]) in words.map { "'" + $0 + "'" }.joined(separator: " ") }
        write(b("#!/bin/sh\nexec \(quoted([Package.binary, "--plan", "job.plan"] + job + ["in", "-o", "out/s-{n}.png"]))\n"),
              to: "plan.sh")
        write(b("#!/bin/sh\nexec \(quoted([Package.binary, "--from-plan", "job.plan", "--shard", "auto"]))\n"), to: "task.sh")
        for script in ["plan.sh", "task.sh"] { chmod(path(script), 0o755) }
        let planned = try runProcess([b("sbatch"), b("--parsable"), b("-D"), b(dir), b("-o"), b(path("plan.log")),
                                      b(path("plan.sh"))], environment: environment, timeout: 60)
        XCTAssertEqual(planned.status, 0, planned.summary)
        let id = String(planned.stdoutText.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let submitted = try runProcess([b("sbatch"), b("--wait"), b("--dependency=afterok:" + id), b("--kill-on-invalid-dep=yes"),
                                        b("--array=0-3"), b("-D"), b(dir), b("-o"), b(path("task-%a.log")), b(path("task.sh"))],
                                       environment: environment, timeout: 300)
        let logs = (["plan.log"] + (0..<4).map { "task-\($0).log" }).map { String(decoding: contents($0) ?? [], as: UTF8.self) }
        XCTAssertEqual(submitted.status, 0, "\(submitted.summary)\n\(logs.joined(separator: "\n"))")
        XCTAssertEqual(outputs("out"), expected, "the plan and the four tasks after it wrote what one run writes")
    }

    /// A one-node Slurm cluster, started for the test: the environment that
    /// points sbatch at it, or nil (the test skipped or failed) when it cannot run.
    private func startSlurm() throws -> [String: String]? {
        guard geteuid() == 0 else {
            throw XCTSkip("needs root: starts munged, slurmctld and slurmd (a one-node Slurm cluster) for the test")
        }
        for program in ["munged", "slurmctld", "slurmd", "sbatch", "sinfo", "setpriv"] where !haveProgram(program) {
            throw XCTSkip("\(program) is missing: scripts/test installs slurm-wlm and munge")
        }
        guard let munge = getpwnam("munge") else { throw XCTSkip("no munge user (the munge package makes it)") }

        // munged, as the munge user, with its own key, socket and pid file here.
        makeFolder("munge")
        chown(path("munge"), munge.pointee.pw_uid, munge.pointee.pw_gid)
        var key = [UInt8](repeating: 0, count: 1024)
        for index in key.indices { key[index] = UInt8.random(in: 0...255) }
        write(key, to: "munge/key")
        chmod(path("munge/key"), 0o400)
        chown(path("munge/key"), munge.pointee.pw_uid, munge.pointee.pw_gid)
        let socket = path("munge/socket")
        try start("munged", ["setpriv", "--reuid=\(munge.pointee.pw_uid)", "--regid=\(munge.pointee.pw_gid)",
                             "--clear-groups", "--", "munged", "-F", "--key-file=" + path("munge/key"),
                             "--socket=" + socket, "--pid-file=" + path("munge/pid"),
                             "--log-file=" + path("munge/log"), "--seed-file=" + path("munge/seed")])

        // slurm.conf: this machine as the one node, ports that are free now.
        // MinJobAge 4: `sbatch --wait` looks at its job every 2 s while
        // 2 s is not under half of it, where the default (300) makes its
        // second look 8 s after the first (finished records stay until
        // slurmctld's next purge, a minute apart, so none is missed).
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        let hostname = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let host = String(hostname.split(separator: ".").first ?? "localhost")
        let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let memory = Int(sysconf(Int32(_SC_PHYS_PAGES))) / 1024 * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024 * 9 / 10
        for folder in ["state", "spool"] { makeFolder(folder) }
        let controllerPort = try freePort()
        var nodePort = try freePort()
        while nodePort == controllerPort { nodePort = try freePort() }
        let conf = """
            ClusterName=collagetest
            SlurmctldHost=\(host)(127.0.0.1)
            SlurmctldPort=\(controllerPort)
            SlurmdPort=\(nodePort)
            AuthType=auth/munge
            AuthInfo=socket=\(socket)
            CredType=cred/munge
            SlurmUser=root
            SlurmdUser=root
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            JobAcctGatherType=jobacct_gather/none
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            MpiDefault=none
            ReturnToService=2
            MinJobAge=4
            StateSaveLocation=\(path("state"))
            SlurmdSpoolDir=\(path("spool"))
            SlurmctldPidFile=\(path("slurmctld.pid"))
            SlurmdPidFile=\(path("slurmd.pid"))
            SlurmctldLogFile=\(path("slurmctld.log"))
            SlurmdLogFile=\(path("slurmd.log"))
            NodeName=\(host) NodeAddr=127.0.0.1 CPUs=\(cpus) RealMemory=\(memory) State=UNKNOWN
            PartitionName=collage Nodes=\(host) Default=YES MaxTime=INFINITE State=UP

            """
        write(b(conf), to: "slurm.conf")
        let environment = ["SLURM_CONF": path("slurm.conf")]
        try start("slurmctld", ["slurmctld", "-D", "-f", path("slurm.conf")], environment: environment)
        try start("slurmd", ["slurmd", "-D", "-f", path("slurm.conf"), "-N", host], environment: environment)

        // A generous deadline: a busy machine starts daemons slowly.
        let deadline = monotonicNow() + 120
        var state = ""
        while monotonicNow() < deadline {
            state = (try? runProcess([b("sinfo"), b("-h"), b("-o"), b("%t")], environment: environment, timeout: 30))?
                .stdoutText ?? ""
            if state.contains("idle") { break }
            usleep(100_000)
        }
        guard state.contains("idle") else {
            let logs = ["slurmctld.log", "slurmd.log"].map { String(decoding: contents($0) ?? [], as: UTF8.self) }
            XCTFail("the node never came up (sinfo: '\(state)')\n\(logs.joined(separator: "\n"))")
            return nil
        }
        return environment
    }

    func testGNUParallelShardsWriteWhatOneRunWrites() throws {
        guard haveProgram("parallel") else { throw XCTSkip("GNU parallel is missing: scripts/test installs it") }
        let expected = try unshardedReference()
        let result = try runProcess([b("parallel"), b("--will-cite"), b("--halt"), b("now,fail=1"), b(Package.binary)]
                                    + job.map(b) + [b("in"), b("-o"), b("out/s-{n}.png"), b("--shard"), b("{}/4"),
                                                    b(":::"), b("0"), b("1"), b("2"), b("3")],
                                    directory: dir, timeout: 300)
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(outputs("out"), expected)
    }

    func testGNUParallelAfterAPlan() throws {
        guard haveProgram("parallel") else { throw XCTSkip("GNU parallel is missing: scripts/test installs it") }
        let expected = try unshardedReference()
        let plan = try collage(["--plan", "job.plan"] + job + ["in", "-o", "out/s-{n}.png"])
        XCTAssertEqual(plan.status, 0, plan.summary)
        let result = try runProcess([b("parallel"), b("--will-cite"), b("--halt"), b("now,fail=1"), b(Package.binary),
                                     b("--from-plan"), b("job.plan"), b("--shard"), b("{}/4"),
                                     b(":::"), b("0"), b("1"), b("2"), b("3")], directory: dir, timeout: 300)
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(outputs("out"), expected)
    }
}
