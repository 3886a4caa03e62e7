CASE
  WHEN ("纹理" = '清晰' OR "纹理" IS NULL) AND "密度" <= 0.3815 THEN '否'
  WHEN ("纹理" = '清晰' OR "纹理" IS NULL) THEN '是'
  WHEN "色泽" = '乌黑' AND "敲声" = '浊响' THEN '是'
  WHEN "色泽" = '乌黑' THEN '否'
  ELSE '否'
END
