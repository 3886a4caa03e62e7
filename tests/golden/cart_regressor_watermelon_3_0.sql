CASE
  WHEN "纹理" IN ('稍糊', '模糊') AND ("脐部" IN ('稍凹', '平坦') OR "脐部" IS NULL) THEN 0.09016666666666667
  WHEN "纹理" IN ('稍糊', '模糊') AND "脐部" = '凹陷' THEN 0.1795
  WHEN "纹理" IN ('稍糊', '模糊') THEN 0.11250000000000002
  WHEN ("纹理" = '清晰' OR "纹理" IS NULL) AND ("密度" <= 0.6655 OR "密度" IS NULL) THEN 0.26885714285714285
  WHEN ("纹理" = '清晰' OR "纹理" IS NULL) THEN 0.41800000000000004
  ELSE 0.2128235294117647
END
