# rpart's complexity table with given cross-validation folds, and the time it takes.
# Usage: Rscript benchmarks/rpart_cptable.R DATA.csv FOLDS.csv OUT_CPTABLE.csv OUT_TIMES.csv REPS
#   DATA.csv   numeric attributes and a column "y" (the class label), no missing values
#   FOLDS.csv  one column "fold": the test fold (1..k) of every row, rpart's xval groups
#   REPS       how many times the rpart() call is timed (the cp table is the same each time)
# Control: cp = 0, minsplit = 2, minbucket = 1 (grown out, as quercus's CARTClassifier()),
# maxsurrogate = 0, usesurrogate = 0 (no surrogates: the data have no missing values), and
# xval = the fold vector. Writes the cptable (CP, nsplit, rel error, xerror, xstd) and one
# elapsed time per repetition. Exits with status 3 when rpart is not installed.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 5) {
  stop("usage: rpart_cptable.R DATA.csv FOLDS.csv OUT_CPTABLE.csv OUT_TIMES.csv REPS")
}
if (!requireNamespace("rpart", quietly = TRUE)) {
  message("rpart is not installed")
  quit(status = 3)
}
library(rpart)
d <- read.csv(args[1], check.names = FALSE)
d$y <- factor(d$y)
fold <- read.csv(args[2])$fold
if (length(fold) != nrow(d)) stop("FOLDS.csv does not match DATA.csv")
reps <- as.integer(args[5])
control <- rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = fold,
                         maxsurrogate = 0, usesurrogate = 0)
times <- numeric(reps)
for (r in seq_len(reps)) {
  t0 <- proc.time()[["elapsed"]]
  fit <- rpart(y ~ ., data = d, method = "class", control = control)
  times[r] <- proc.time()[["elapsed"]] - t0
}
tab <- as.data.frame(fit$cptable)
names(tab) <- c("CP", "nsplit", "rel_error", "xerror", "xstd")
write.csv(tab, args[3], row.names = FALSE)
write.csv(data.frame(seconds = times), args[4], row.names = FALSE)
