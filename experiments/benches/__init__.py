"""`villagelab bench`'s measurements, apart from the product they measure: the performance
table (`performance`, with the Mesa comparison in `mesa_models`), the instrument's spread
(`instrument`) and whole searches against careful.yaml (`search`)."""
