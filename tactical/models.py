# Battle records arrive with the battles issue; the app exists so its rules package and
# migrations have a home from the start.
