import java.io.File;
import java.io.FileOutputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.DirectorySourceFileLocator;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

// Report writes JaCoCo's XML report of an exec file, as jacococli report
// --xml does: java Report EXEC CLASSES OUT.xml.
public class Report {
    public static void main(String[] args) throws Exception {
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[0]));
        CoverageBuilder builder = new CoverageBuilder();
        new Analyzer(loader.getExecutionDataStore(), builder).analyzeAll(new File(args[1]));
        try (FileOutputStream out = new FileOutputStream(args[2])) {
            IReportVisitor v = new XMLFormatter().createVisitor(out);
            v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
            v.visitBundle(builder.getBundle("demo"), new DirectorySourceFileLocator(new File(args[1]), "utf-8", 4));
            v.visitEnd();
        }
    }
}
