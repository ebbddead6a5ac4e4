def dashboard():
    return render_template("dashboard.html", user=current_user, items=load_items(current_user.id), settings=load_settings(current_user.id))
