# rpart on given cross-validation folds.
# Usage: Rscript benchmarks/rpart_cv.R DATA.csv TYPES.csv FOLDS.csv OUT.csv
#   DATA.csv   the data, missing values as empty cells
#   TYPES.csv  columns name,kind with kind one of target, categorical, numeric
#   FOLDS.csv  one column per repeat (r0, r1, ...): the test fold (1..k) of every row
#   OUT.csv    written: setting,repeat,fold,accuracy,n_leaves,fit_seconds,n_train,n_fit
# Settings: "default" is rpart() with its defaults (minsplit = 20, minbucket = 7, cp = 0.01,
# maxsurrogate = 5, usesurrogate = 2); "full" grows the tree out (cp = 0, minsplit = 2,
# minbucket = 1), as quercus's CARTClassifier() does. Exits with status 3 when rpart is not
# installed.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 4) stop("usage: rpart_cv.R DATA.csv TYPES.csv FOLDS.csv OUT.csv")
if (!requireNamespace("rpart", quietly = TRUE)) {
  message("rpart is not installed")
  quit(status = 3)
}
library(rpart)
types <- read.csv(args[2], colClasses = "character")
d <- read.csv(args[1], colClasses = "character", na.strings = "", check.names = FALSE)
for (i in seq_len(nrow(types))) {
  col <- types$name[i]
  d[[col]] <- switch(types$kind[i],
                     target = factor(d[[col]]),
                     categorical = factor(d[[col]]),
                     numeric = as.numeric(d[[col]]))
}
target <- types$name[types$kind == "target"]
form <- as.formula(paste0("`", target, "` ~ ."))
folds <- read.csv(args[3])
settings <- list(default = rpart.control(),
                 full = rpart.control(cp = 0, minsplit = 2, minbucket = 1))
rows <- list()
for (setting in names(settings)) {
  for (r in seq_along(folds)) {
    fold_of <- folds[[r]]
    for (k in sort(unique(fold_of))) {
      train <- d[fold_of != k, , drop = FALSE]
      test <- d[fold_of == k, , drop = FALSE]
      set.seed(0)  # rpart's internal cross-validation (xval) draws random groups
      t0 <- proc.time()[["elapsed"]]
      fit <- rpart(form, data = train, method = "class", control = settings[[setting]])
      secs <- proc.time()[["elapsed"]] - t0
      pred <- predict(fit, newdata = test, type = "class")
      if (length(pred) != nrow(test) || anyNA(pred)) stop("rpart left a test row unpredicted")
      rows[[length(rows) + 1]] <- data.frame(
        setting = setting, `repeat` = r - 1, fold = k,
        accuracy = mean(as.character(pred) == as.character(test[[target]])),
        n_leaves = sum(fit$frame$var == "<leaf>"), fit_seconds = secs,
        n_train = nrow(train), n_fit = fit$frame$n[1], check.names = FALSE)
    }
  }
}
write.csv(do.call(rbind, rows), args[4], row.names = FALSE)
