// ArborReport writes JaCoCo's XML report of one run: arbor runs it after
// each run of a java command under --report jacoco, with the exec file
// the JaCoCo agent wrote, where to write the report, and the class path
// entries (folders of classes and jars) whose classes the report lists.
//
//     java -cp ... ArborReport RUN.exec REPORT.xml ENTRY...
//
// It needs JaCoCo's core and report jars and ASM's (Debian's
// libjacoco-java); Debian ships no JaCoCo command-line tool.

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

public class ArborReport {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ArborReport RUN.exec REPORT.xml ENTRY...");
            System.exit(2);
        }
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[0]));
        CoverageBuilder builder = new CoverageBuilder();
        Analyzer analyzer = new Analyzer(loader.getExecutionDataStore(), builder);
        for (int i = 2; i < args.length; i++) {
            File entry = new File(args[i]);
            if (entry.exists()) {
                analyzer.analyzeAll(entry);
            }
        }
        try (OutputStream out = new FileOutputStream(args[1])) {
            IReportVisitor v = new XMLFormatter().createVisitor(out);
            v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
            v.visitBundle(builder.getBundle("run"), null);
            v.visitEnd();
        }
    }
}
