// ArborHarness runs a static Java method in-process once per input and
// reports which methods ran, speaking arbor's ARBOR2 protocol (see
// coverage/native.go). It runs under the JaCoCo agent with output=none:
// the agent instruments the recorded classes as they load, and the
// harness reads the agent's probes after each input.
//
//	java -javaagent:agent.jar=includes=PATTERNS,output=none -cp CP ArborHarness \
//	    ENTRY COVER REJECT CLASSPATH-TO-SCAN...
//
// ENTRY is pkg.Class.method (static, taking byte[] or String); COVER and
// REJECT are comma-separated lists (COVER: classes or packages, "x.*" for
// a prefix; REJECT: exception classes), either may be "-" for the
// default; the rest are the class path entries whose classes are
// recorded.
//
// A request is a kind byte, a 16-byte token, a uint32 length and the
// input; each reply starts with its request's token, which the subject
// never sees, so that what the subject writes to the reply pipe is not
// taken for a reply. (Java cannot move descriptor 4 out of the subject's
// way, as the other harnesses do: the token alone protects the replies.)
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.jacoco.agent.rt.IAgent;
import org.jacoco.agent.rt.RT;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.analysis.IMethodCoverage;
import org.jacoco.core.data.ExecutionData;
import org.jacoco.core.data.ExecutionDataReader;
import org.jacoco.core.data.ExecutionDataStore;
import org.jacoco.core.internal.flow.ClassProbesAdapter;
import org.jacoco.core.internal.flow.ClassProbesVisitor;
import org.jacoco.core.internal.flow.IFrame;
import org.jacoco.core.internal.flow.LabelInfo;
import org.jacoco.core.internal.flow.MethodProbesVisitor;
import org.jacoco.core.internal.instr.InstrSupport;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

public final class ArborHarness {
    // An instrumented class: its probe count and, for each probe, the id
    // of the method it belongs to (-1: a method JaCoCo's report leaves
    // out, or a class that is not recorded) and the classes that the
    // instructions the probe stands for initialize (see initTriggers).
    static final class Klass {
        int probes;
        int[] method;
        String[][] triggers;
    }

    static final Map<String, Klass> classes = new HashMap<>(); // by internal name
    static final List<String> names = new ArrayList<>();
    static String[] cover;
    static String entryClass; // internal name
    static Class<?>[] reject;
    // What initializing a class runs, in a process where nothing is yet
    // (by internal name; see initWork), and what initializing the
    // entry's class runs, which every process per input does first.
    static final Map<String, int[]> initWork = new HashMap<>();
    static int[] always = new int[0];
    static URL[] classPath;

    public static void main(String[] args) throws Exception {
        // Java has no portable way to use an inherited descriptor by its
        // number; on Linux /proc/self/fd/N (or /dev/fd/N) opens the pipe
        // the parent passed as descriptor N.
        InputStream requests = new FileInputStream(fd(3));
        OutputStream replies = new BufferedOutputStream(new FileOutputStream(fd(4)), 1 << 16);
        watchParent();
        Out out = new Out(replies);
        out.raw("ARBOR2\n".getBytes(StandardCharsets.UTF_8));
        String status;
        Method entry = null;
        boolean bytes = true;
        try {
            if (args.length < 3) {
                throw new Failure("usage: ArborHarness ENTRY COVER REJECT CLASSPATH...");
            }
            entry = resolve(args[0]);
            bytes = entry.getParameterTypes()[0] == byte[].class;
            String pkg = args[0].substring(0, args[0].lastIndexOf('.'));
            pkg = pkg.contains(".") ? pkg.substring(0, pkg.lastIndexOf('.')) : "";
            cover = args[1].equals("-") ? new String[] {pkg.isEmpty() ? args[0].substring(0, args[0].lastIndexOf('.')) : pkg + ".*"} : args[1].split(",");
            String[] rej = args[2].equals("-") ? new String[] {"java.lang.Exception"} : args[2].split(",");
            reject = new Class<?>[rej.length];
            for (int i = 0; i < rej.length; i++) {
                try {
                    reject[i] = Class.forName(rej[i], false, ArborHarness.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new Failure("no exception class " + rej[i] + " for rejections");
                }
            }
            entryClass = entry.getDeclaringClass().getName().replace('.', '/');
            classPath = new URL[args.length - 3];
            for (int i = 3; i < args.length; i++) {
                classPath[i - 3] = new File(args[i]).toURI().toURL();
                scan(new File(args[i]));
            }
            if (names.isEmpty()) {
                throw new Failure("no methods of " + String.join(", ", cover) + " found on the class path");
            }
            // The entry's class is initialized now, so that its static
            // initializer is not taken for the first input's work.
            // What that runs, a process per input runs every time.
            IAgent agent = agent();
            agent.reset();
            try {
                Class.forName(entry.getDeclaringClass().getName(), true, entry.getDeclaringClass().getClassLoader());
            } catch (LinkageError e) {
                Throwable t = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
                throw new Failure("initializing " + entry.getDeclaringClass().getName() + " failed: " + t);
            }
            always = ids(hits(agent.getExecutionData(true), null));
            status = "ok";
        } catch (Failure e) {
            status = e.getMessage();
        } catch (NoClassDefFoundError e) {
            status = "the JaCoCo agent is not loaded: " + e;
        } catch (Exception | LinkageError e) {
            status = "cannot start: " + e;
        }
        out.raw((status.replace('\n', ' ') + "\n").getBytes(StandardCharsets.UTF_8));
        if (!status.equals("ok")) {
            out.flush();
            // Threads the entry's class may have started must not keep
            // the process alive.
            Runtime.getRuntime().halt(0);
        }
        StringBuilder sb = new StringBuilder();
        for (String n : names) {
            sb.append(n).append('\n');
        }
        out.blob(sb.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        boolean dirty = false; // probes hit outside a recorded run
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(requests, 1 << 16));
        byte[] input = new byte[0];
        byte[] token = new byte[16];
        IAgent agent = agent();
        for (;;) {
            int kind;
            int n;
            try {
                kind = in.readUnsignedByte();
                in.readFully(token);
                n = Integer.reverseBytes(in.readInt());
            } catch (EOFException e) {
                out.flush();
                Runtime.getRuntime().halt(0);
                return;
            }
            if (n < 0) {
                throw new IOException("input of " + n + " bytes");
            }
            if (input.length != n) {
                input = new byte[n];
            }
            in.readFully(input);
            if (kind == 'Q') {
                out.flush();
                Runtime.getRuntime().halt(0);
            }
            if (kind == 'R' && dirty) {
                agent.reset();
            }
            Object arg = bytes ? input : new String(input, StandardCharsets.UTF_8);
            int outcome = 0;
            String message = "";
            String frames = "";
            long start = System.nanoTime();
            try {
                entry.invoke(null, arg);
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause() != null ? e.getCause() : e;
                outcome = 2;
                for (Class<?> r : reject) {
                    if (r.isInstance(t)) {
                        outcome = 1;
                    }
                }
                message = String.valueOf(t);
                if (outcome == 2) {
                    frames = frames(t);
                }
            } catch (IllegalAccessException | IllegalArgumentException e) {
                outcome = 2;
                message = String.valueOf(e);
            }
            long took = System.nanoTime() - start;
            byte[] counters = new byte[0];
            if (kind == 'R') {
                counters = covered(agent, agent.getExecutionData(true));
                dirty = false;
            } else {
                dirty = true;
            }
            out.raw(token);
            out.u8(outcome);
            out.u64(took);
            out.blob(message.getBytes(StandardCharsets.UTF_8));
            out.blob(frames.getBytes(StandardCharsets.UTF_8));
            out.blob(counters);
            out.flush();
        }
    }

    static String fd(int n) {
        File proc = new File("/proc/self/fd/" + n);
        return proc.exists() ? proc.getPath() : "/dev/fd/" + n;
    }

    static IAgent agent() {
        try {
            return RT.getAgent();
        } catch (IllegalStateException e) {
            throw new Failure("the JaCoCo agent is not running (start java with -javaagent)");
        }
    }

    // watchParent ends the process when the parent's pipe (descriptor 5)
    // reads EOF: the parent is gone, and no one will read our replies.
    static void watchParent() {
        Thread t = new Thread(() -> {
            try (InputStream live = new FileInputStream(fd(5))) {
                byte[] b = new byte[64];
                while (live.read(b) >= 0) {
                }
            } catch (IOException e) {
                // Unreadable is as good as closed.
            }
            Runtime.getRuntime().halt(0);
        }, "arbor-parent");
        t.setDaemon(true);
        t.start();
    }

    static final class Failure extends RuntimeException {
        Failure(String msg) {
            super(msg);
        }
    }

    static Method resolve(String entry) {
        int dot = entry.lastIndexOf('.');
        if (dot <= 0 || dot == entry.length() - 1) {
            throw new Failure("want the entry as pkg.Class.method, not " + entry);
        }
        String cls = entry.substring(0, dot), name = entry.substring(dot + 1);
        Class<?> c;
        try {
            c = Class.forName(cls, false, ArborHarness.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new Failure("cannot load class " + cls + ": " + e);
        }
        for (Class<?> p : new Class<?>[] {byte[].class, String.class}) {
            try {
                Method m = c.getDeclaredMethod(name, p);
                if (!Modifier.isStatic(m.getModifiers())) {
                    throw new Failure(entry + " is not static");
                }
                m.setAccessible(true);
                return m;
            } catch (NoSuchMethodException e) {
                // Try the other parameter type.
            } catch (SecurityException | LinkageError e) {
                throw new Failure("cannot use " + entry + ": " + e);
            }
        }
        throw new Failure("class " + cls + " has no static method " + name + "(byte[]) or " + name + "(String)");
    }

    static boolean covers(String cls) {
        for (String p : cover) {
            if (p.endsWith(".*")) {
                if (cls.startsWith(p.substring(0, p.length() - 1))) {
                    return true;
                }
            } else if (cls.equals(p) || cls.startsWith(p + "$")
                    || (cls.startsWith(p + ".") && cls.indexOf('.', p.length() + 1) < 0)) {
                return true;
            }
        }
        return false;
    }

    // instrumented reports whether the agent instruments a class (by
    // internal name): the recorded ones and the entry's.
    static boolean instrumented(String cls) {
        return covers(cls.replace('/', '.')) || cls.equals(entryClass) || cls.startsWith(entryClass + "$");
    }

    // scan analyses the recorded classes of a class path entry, in name
    // order so that a restarted harness names the same methods.
    static void scan(File f) throws IOException {
        TreeMap<String, byte[]> found = new TreeMap<>();
        if (f.isDirectory()) {
            walk(f, "", found);
        } else if (f.isFile()) {
            try (JarFile jar = new JarFile(f)) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                    JarEntry je = e.nextElement();
                    String n = je.getName();
                    // Multi-release versions replace classes JaCoCo
                    // would read twice; module-info has no code.
                    if (!n.endsWith(".class") || n.startsWith("META-INF/") || n.endsWith("module-info.class")) {
                        continue;
                    }
                    String cls = n.substring(0, n.length() - 6);
                    if (instrumented(cls)) {
                        found.putIfAbsent(cls, jar.getInputStream(je).readAllBytes());
                    }
                }
            }
        }
        for (Map.Entry<String, byte[]> e : found.entrySet()) {
            if (!classes.containsKey(e.getKey())) {
                analyse(e.getKey(), e.getValue());
            }
        }
    }

    static void walk(File dir, String prefix, TreeMap<String, byte[]> found) throws IOException {
        File[] list = dir.listFiles();
        if (list == null) {
            return;
        }
        for (File f : list) {
            String n = prefix + f.getName();
            if (f.isDirectory()) {
                walk(f, n + "/", found);
            } else if (n.endsWith(".class") && !n.endsWith("module-info.class")) {
                String cls = n.substring(0, n.length() - 6);
                if (instrumented(cls)) {
                    found.putIfAbsent(cls, Files.readAllBytes(f.toPath()));
                }
            }
        }
    }

    // analyse finds which probes belong to which method, as the agent
    // numbers them, and names the methods JaCoCo's report would list
    // (those with instructions left after its filters), as
    // coverage/report.JavaName does. The entry's class, instrumented for
    // the classes it initializes, is analysed but not named unless
    // recorded.
    static void analyse(String cls, byte[] bytes) {
        boolean record = covers(cls.replace('/', '.'));
        CoverageBuilder builder = new CoverageBuilder();
        try {
            new Analyzer(new ExecutionDataStore(), builder).analyzeClass(bytes, cls);
        } catch (IOException | RuntimeException e) {
            System.err.println("arbor: cannot analyse " + cls + " (left out): " + e);
            return;
        }
        Map<String, Integer> ids = new HashMap<>();
        for (IClassCoverage cc : builder.getClasses()) {
            for (IMethodCoverage mc : cc.getMethods()) {
                if (!record) {
                    continue;
                }
                StringBuilder sb = new StringBuilder(cls.replace('/', '.')).append('.').append(mc.getName()).append('(');
                Type[] params = Type.getArgumentTypes(mc.getDesc());
                for (int i = 0; i < params.length; i++) {
                    sb.append(i > 0 ? "," : "").append(params[i].getClassName());
                }
                ids.put(mc.getName() + mc.getDesc(), names.size());
                names.add(sb.append(')').toString());
            }
        }
        Klass k = new Klass();
        Map<Integer, Integer> owner = new HashMap<>();
        Map<Integer, String[]> triggers = new HashMap<>();
        ClassProbesVisitor v = new ClassProbesVisitor() {
            @Override
            public MethodProbesVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                return new InitTriggers(ids.getOrDefault(name + desc, -1), owner, triggers);
            }

            @Override
            public void visitTotalProbeCount(int count) {
                k.probes = count;
            }
        };
        InstrSupport.classReaderFor(bytes).accept(new ClassProbesAdapter(v, false), 0);
        k.method = new int[k.probes];
        k.triggers = new String[k.probes][];
        Arrays.fill(k.method, -1);
        for (Map.Entry<Integer, Integer> e : owner.entrySet()) {
            if (e.getKey() < k.probes) {
                k.method[e.getKey()] = e.getValue();
            }
        }
        for (Map.Entry<Integer, String[]> e : triggers.entrySet()) {
            if (e.getKey() < k.probes) {
                k.triggers[e.getKey()] = e.getValue();
            }
        }
        classes.put(cls, k);
    }

    // InitTriggers finds, for each probe of a method, the classes that
    // the instructions it stands for initialize (new, a static field or
    // method). JaCoCo counts an instruction run when a probe after it on
    // its chain of predecessors was hit; the chains are built here as
    // JaCoCo's MethodAnalyzer and InstructionsBuilder build them: an
    // instruction's predecessor is the one before it, unless a label
    // that no instruction falls through to or a probe comes between,
    // and the target of a jump without a probe has the jump as its
    // predecessor.
    static final class InitTriggers extends MethodProbesVisitor {
        static final class Insn {
            String init;
            Insn pred;
        }

        final int method;
        final Map<Integer, Integer> owner;
        final Map<Integer, String[]> triggers;
        final Map<Integer, Insn> probes = new HashMap<>();
        final List<Label> pending = new ArrayList<>();
        final Map<Label, Insn> at = new HashMap<>();
        final List<Object[]> jumps = new ArrayList<>();
        Insn current;

        InitTriggers(int method, Map<Integer, Integer> owner, Map<Integer, String[]> triggers) {
            this.method = method;
            this.owner = owner;
            this.triggers = triggers;
        }

        void add(String init) {
            Insn i = new Insn();
            i.init = init;
            i.pred = current;
            for (Label l : pending) {
                at.put(l, i);
            }
            pending.clear();
            current = i;
        }

        void probe(int id) {
            if (id >= 0) {
                probes.put(id, current);
                owner.put(id, method);
            }
        }

        void targets(Label dflt, Label[] labels) {
            target(dflt);
            for (Label l : labels) {
                target(l);
            }
        }

        void target(Label l) {
            int id = LabelInfo.getProbeId(l);
            if (id == LabelInfo.NO_PROBE) {
                jumps.add(new Object[] {current, l});
            } else {
                probe(id);
            }
        }

        @Override
        public void visitLabel(Label l) {
            pending.add(l);
            if (!LabelInfo.isSuccessor(l)) {
                current = null;
            }
        }

        @Override
        public void visitProbe(int id) {
            probe(id);
            current = null;
        }

        @Override
        public void visitJumpInsnWithProbe(int op, Label l, int id, IFrame f) {
            add(null);
            probe(id);
        }

        @Override
        public void visitInsnWithProbe(int op, int id) {
            add(null);
            probe(id);
        }

        @Override
        public void visitTableSwitchInsnWithProbes(int min, int max, Label dflt, Label[] labels, IFrame f) {
            add(null);
            targets(dflt, labels);
        }

        @Override
        public void visitLookupSwitchInsnWithProbes(Label dflt, int[] keys, Label[] labels, IFrame f) {
            add(null);
            targets(dflt, labels);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            add(null);
            jumps.add(new Object[] {current, dflt});
            for (Label l : labels) {
                jumps.add(new Object[] {current, l});
            }
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
            visitTableSwitchInsn(0, 0, dflt, labels);
        }

        @Override
        public void visitJumpInsn(int op, Label l) {
            add(null);
            jumps.add(new Object[] {current, l});
        }

        @Override
        public void visitInsn(int op) {
            add(null);
        }

        @Override
        public void visitIntInsn(int op, int operand) {
            add(null);
        }

        @Override
        public void visitVarInsn(int op, int v) {
            add(null);
        }

        @Override
        public void visitTypeInsn(int op, String type) {
            add(op == org.objectweb.asm.Opcodes.NEW ? type : null);
        }

        @Override
        public void visitFieldInsn(int op, String owner, String name, String desc) {
            boolean init = op == org.objectweb.asm.Opcodes.GETSTATIC || op == org.objectweb.asm.Opcodes.PUTSTATIC;
            add(init ? owner : null);
        }

        @Override
        public void visitMethodInsn(int op, String owner, String name, String desc, boolean itf) {
            add(op == org.objectweb.asm.Opcodes.INVOKESTATIC ? owner : null);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String desc, org.objectweb.asm.Handle bsm, Object... args) {
            add(null);
        }

        @Override
        public void visitLdcInsn(Object value) {
            add(null);
        }

        @Override
        public void visitIincInsn(int v, int inc) {
            add(null);
        }

        @Override
        public void visitMultiANewArrayInsn(String desc, int dims) {
            add(null);
        }

        @Override
        public void visitEnd() {
            for (Object[] j : jumps) {
                Insn target = at.get((Label) j[1]);
                if (target != null && j[0] != null) {
                    target.pred = (Insn) j[0];
                }
            }
            for (Map.Entry<Integer, Insn> e : probes.entrySet()) {
                Set<String> init = new HashSet<>();
                Set<Insn> seen = new HashSet<>();
                for (Insn i = e.getValue(); i != null && seen.add(i); i = i.pred) {
                    if (i.init != null) {
                        init.add(i.init);
                    }
                }
                if (!init.isEmpty()) {
                    triggers.put(e.getKey(), init.toArray(new String[0]));
                }
            }
        }
    }

    // hits reads the agent's execution data: the methods with a probe
    // hit and, if used is not null, the classes a process that ran them
    // afresh would have initialized: those whose code ran and those the
    // code that ran initializes.
    static boolean[] hits(byte[] data, Set<String> used) throws IOException {
        final boolean[] hit = new boolean[names.size()];
        ExecutionDataReader r = new ExecutionDataReader(new ByteArrayInputStream(data));
        r.setSessionInfoVisitor(info -> {
        });
        r.setExecutionDataVisitor((ExecutionData d) -> {
            Klass k = classes.get(d.getName());
            boolean[] p = d.getProbes();
            if (k == null || p.length != k.probes) {
                return;
            }
            boolean any = false;
            for (int i = 0; i < p.length; i++) {
                if (!p[i]) {
                    continue;
                }
                any = true;
                if (k.method[i] >= 0) {
                    hit[k.method[i]] = true;
                }
                if (used != null && k.triggers[i] != null) {
                    used.addAll(Arrays.asList(k.triggers[i]));
                }
            }
            if (any && used != null) {
                used.add(d.getName());
            }
        });
        r.read();
        return hit;
    }

    static int[] ids(boolean[] hit) {
        int n = 0;
        for (boolean h : hit) {
            n += h ? 1 : 0;
        }
        int[] ids = new int[n];
        n = 0;
        for (int id = 0; id < hit.length; id++) {
            if (hit[id]) {
                ids[n++] = id;
            }
        }
        return ids;
    }

    // covered turns the agent's execution data into (method id, 1) pairs:
    // a method ran when any of its probes was hit, as JaCoCo's report
    // counts a method covered when any of its instructions is. A class is
    // initialized once per process, but in every process-per-input run
    // that uses it; so to the methods an input ran are added what
    // initializing the classes it uses runs (initWork), and what
    // initializing the entry's class ran, so that the labels match those
    // of a process per input.
    static byte[] covered(IAgent agent, byte[] data) throws IOException {
        Set<String> used = new HashSet<>();
        boolean[] hit = hits(data, used);
        for (String cls : used) {
            if (classes.containsKey(cls)) {
                for (int id : initWork(agent, cls)) {
                    hit[id] = true;
                }
            }
        }
        for (int id : always) {
            hit[id] = true;
        }
        int[] ids = ids(hit);
        byte[] out = new byte[8 * ids.length];
        for (int i = 0; i < ids.length; i++) {
            putInt(out, 8 * i, ids[i]);
            putInt(out, 8 * i + 4, 1);
        }
        return out;
    }

    // initWork is what initializing a class runs in a process where no
    // class is yet initialized, measured once, by initializing it in a
    // class loader of its own (the agent's probes are shared by every
    // copy of a class, and the program's own copies stay as they are).
    static int[] initWork(IAgent agent, String cls) throws IOException {
        int[] work = initWork.get(cls);
        if (work != null) {
            return work;
        }
        agent.reset();
        try (URLClassLoader fresh = new URLClassLoader(classPath, ClassLoader.getPlatformClassLoader())) {
            Class.forName(cls.replace('/', '.'), true, fresh);
        } catch (Throwable t) {
            // A class that fails to initialize ran what it ran.
        }
        work = ids(hits(agent.getExecutionData(true), null));
        initWork.put(cls, work);
        return work;
    }

    // frames names the innermost three frames of a crash in recorded
    // classes, one per line, or if none is, the innermost frames above the
    // harness's reflective call.
    static String frames(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (StackTraceElement e : st) {
            if (n < 3 && covers(e.getClassName())) {
                sb.append(e.getClassName()).append('.').append(e.getMethodName()).append('\n');
                n++;
            }
        }
        int covered = n;
        for (int i = 0; i < st.length && n < 3 && covered == 0; i++) {
            String c = st[i].getClassName();
            if (c.equals("ArborHarness")) {
                break;
            }
            // The reflective call of the entry is the harness's, not the
            // subject's: its frames' names vary from run to run.
            if (!c.startsWith("jdk.internal.reflect.") && !c.startsWith("java.lang.reflect.") && !c.startsWith("sun.reflect.")) {
                sb.append(c).append('.').append(st[i].getMethodName()).append('\n');
                n++;
            }
        }
        return sb.toString().trim();
    }

    static void putInt(byte[] b, int o, int v) {
        b[o] = (byte) v;
        b[o + 1] = (byte) (v >>> 8);
        b[o + 2] = (byte) (v >>> 16);
        b[o + 3] = (byte) (v >>> 24);
    }

    // Out writes the protocol's little-endian integers and blobs.
    static final class Out {
        final OutputStream w;
        final byte[] b = new byte[8];

        Out(OutputStream w) {
            this.w = w;
        }

        void raw(byte[] p) throws IOException {
            w.write(p);
        }

        void u8(int v) throws IOException {
            w.write(v);
        }

        void u64(long v) throws IOException {
            for (int i = 0; i < 8; i++) {
                b[i] = (byte) (v >>> (8 * i));
            }
            w.write(b, 0, 8);
        }

        void blob(byte[] p) throws IOException {
            putInt(b, 0, p.length);
            w.write(b, 0, 4);
            w.write(p);
        }

        void flush() throws IOException {
            w.flush();
        }
    }
}
